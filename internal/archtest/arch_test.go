// Package archtest asserts the module's architectural rules.
package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// The core module must never depend on an MCP SDK: only the mcp/ module may.
func TestCoreHasNoMCPDependency(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-test", "github.com/vivary-dev/vivary-go/...")
	cmd.Dir = "../.."
	cmd.Env = append(cmd.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "\n"); n < 20 {
		t.Fatalf("go list listed only %d packages", n)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "modelcontextprotocol") {
			t.Errorf("core module depends on %s", line)
		}
	}
}

// The shipped binaries never contain the crash-test faults: only a build
// with the vivary_faults tag does (and the check below proves the tag is
// what brings them in, so the first half cannot pass vacuously).
func TestShippedBinariesHaveNoFaults(t *testing.T) {
	list := func(tags ...string) string {
		args := append([]string{"list"}, tags...)
		cmd := exec.Command("go", append(args, "-deps", "./cmd/...", "./mcp/cmd/...")...)
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		return string(out)
	}
	const faults = "github.com/vivary-dev/vivary-go/internal/faults\n"
	if strings.Contains(list(), faults) {
		t.Error("a shipped binary links internal/faults")
	}
	if !strings.Contains(list("-tags", "vivary_faults"), faults) {
		t.Error("the vivary_faults build does not link internal/faults")
	}
}
