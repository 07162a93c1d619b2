package cli_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/attack"
	"github.com/vivary-dev/vivary-go/internal/cli"
	"github.com/vivary-dev/vivary-go/internal/testws"
)

// TestAttackCorpusCLI: the CLI screens as MCP does, in human and --json
// output alike. A note holding an SCP-style credential (git:pw@host:repo)
// is dropped before anything of it is printed, and a file named like a
// token is never listed.
func TestAttackCorpusCLI(t *testing.T) {
	files, markers := attack.Corpus()
	root := testws.Thin(t, files)
	for _, args := range [][]string{
		{"query", "--workspace", root, "--limit", "20", "--snippet-chars", "1000", "--explain", attack.Words},
		{"query", "--workspace", root, "--limit", "20", "--snippet-chars", "1000", "--json", attack.Words},
		{"find", "--workspace", root, "--limit", "20", "--budget", "4000", attack.Words},
		{"find", "--workspace", root, "--limit", "20", "--budget", "4000", "--json", attack.Words},
		{"check", "--workspace", root},
		{"check", "--workspace", root, "--json"},
		{"capsule", "--workspace", root, "--json", attack.Words},
	} {
		var out, errb bytes.Buffer
		code := cli.Vivary(args, &out, &errb)
		all := out.String() + errb.String()
		if code == 2 {
			t.Errorf("%v: exit 2: %s", args[:1], all)
		}
		for _, m := range markers {
			if strings.Contains(all, m) {
				t.Errorf("%v %v: marker %q printed", args[0], args[len(args)-1], m)
			}
		}
		if args[0] != "capsule" && args[0] != "check" && !strings.Contains(all, "clean-note") {
			t.Errorf("%v: the clean note is missing:\n%s", args, all)
		}
	}
}
