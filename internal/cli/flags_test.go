package cli_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/cli"
	"github.com/vivary-dev/vivary-go/internal/version"
)

// TestFlagErrorsNeverEchoTheValue: a bad flag value is named by its flag
// and the range it takes; the value itself, which may be anything a user
// pasted, is never printed.
func TestFlagErrorsNeverEchoTheValue(t *testing.T) {
	const leak = "999LEAK84"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"query", "--workspace", ".", "--limit", leak, "x"}, "--limit takes a whole number from 1 to 20"},
		{[]string{"query", "--workspace", ".", "--snippet-chars=" + leak, "x"}, "--snippet-chars takes a whole number from 0 to 1000"},
		{[]string{"find", "--workspace", ".", "--budget", leak, "x"}, "--budget takes a whole number from 64 to 4000"},
		{[]string{"find", "--workspace", ".", "--limit", "99999999999999999999" + leak, "x"}, "--limit takes a whole number from 1 to 20"},
		{[]string{"capsule", "--workspace", ".", "--max-claims", leak, "x"}, "--max-claims takes a whole number from 0 to 24"},
		{[]string{"check", "--workspace", ".", "--strict=" + leak}, "--strict was given a value it does not take"},
		{[]string{"check", "--" + leak}, "unknown flag"},
		{[]string{"query", "--workspace", ".", "x", "--limit"}, "--limit needs a value"},
	} {
		var out, errb bytes.Buffer
		code := cli.Vivary(c.args, &out, &errb)
		all := out.String() + errb.String()
		if code != 2 || strings.Contains(all, leak) || strings.Contains(all, "LEAK") || !strings.Contains(all, c.want) {
			t.Errorf("%v: exit %d\n%s\nwant %q and no value", c.args, code, all, c.want)
		}
	}
}

// TestEveryCommandHasHelpAndVersion: each binary and each of its commands
// answers --help with its own usage on stdout and --version with the
// binary's build version, and exits 0 without touching a workspace.
func TestEveryCommandHasHelpAndVersion(t *testing.T) {
	for _, p := range []struct {
		name     string
		main     func([]string, io.Writer, io.Writer) int
		commands []string
	}{
		{"vivary", cli.Vivary, []string{"check", "query", "find", "capsule"}},
		{"create-vivary", cli.Create, []string{"init", "adopt", "doctor", "record"}},
	} {
		wantVersion := p.name + " " + version.String() + "\n"
		if code, out, errs := run(p.main, "--version"); code != 0 || out != wantVersion || errs != "" {
			t.Errorf("%s --version: exit %d, %q %q; want %q", p.name, code, out, errs, wantVersion)
		}
		for _, c := range p.commands {
			if code, out, errs := run(p.main, c, "--help"); code != 0 || !strings.HasPrefix(out, "Usage: "+p.name+" "+c+" ") ||
				!strings.Contains(out, "--version") || errs != "" {
				t.Errorf("%s %s --help: exit %d\n%s%s", p.name, c, code, out, errs)
			}
			// --version wins wherever it stands, even beside a missing
			// argument.
			if code, out, errs := run(p.main, c, "x", "--version"); code != 0 || out != wantVersion || errs != "" {
				t.Errorf("%s %s --version: exit %d, %q %q; want %q", p.name, c, code, out, errs, wantVersion)
			}
		}
	}
}
