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
