package cli_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/cli"
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
