// Package archtest asserts the module's architectural rules.
package archtest

import (
	"os"
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

// writers are the packages that write into a workspace.
var writers = []string{"workspace/write", "record", "greenfield", "adopt"}

// deps lists the packages the named ones link, by module-relative path.
func deps(t *testing.T, pkgs ...string) map[string]bool {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...)
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	set := map[string]bool{}
	for _, line := range strings.Fields(string(out)) {
		if rel, ok := strings.CutPrefix(line, "github.com/vivary-dev/vivary-go/"); ok {
			set[rel] = true
		}
	}
	return set
}

// vivary-mcp is read-only by construction: no package that writes into a
// workspace is linked into it, nor into Doctor, the health report that
// only reads and that every writer runs after writing.
// create-vivary links every writer, so the names below are the writers'
// real paths and the check cannot pass vacuously.
func TestReadersLinkNoWriter(t *testing.T) {
	create := deps(t, "./cmd/create-vivary")
	for _, w := range writers {
		if !create[w] {
			t.Fatalf("create-vivary does not link %s: is the writers' list out of date?", w)
		}
	}
	for _, reader := range []string{"./mcp/cmd/vivary-mcp", "./doctor"} {
		linked := deps(t, reader)
		if !linked["produce"] {
			t.Fatalf("%s does not link produce: the listing is not of the reader", reader)
		}
		for _, w := range writers {
			if linked[w] {
				t.Errorf("%s links the writer %s", reader, w)
			}
		}
	}
}

// The owner's view of what is hidden (vivary check --show-hidden) is
// reached only through produce.CheckShowingHidden, which sets
// snapshot.Options.ListHidden; no package vivary-mcp links calls the one
// or sets the other, so no agent can ask for it.
func TestServerNeverListsHiddenPaths(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .GoFiles}} {{$.Dir}}/{{.}}{{end}}`, "./mcp/cmd/vivary-mcp")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], "github.com/vivary-dev/vivary-go") {
			continue
		}
		for _, file := range fields[1:] {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src := string(b)
			checked++
			switch fields[0] {
			case "github.com/vivary-dev/vivary-go/snapshot":
				continue // where ListHidden is defined and obeyed
			case "github.com/vivary-dev/vivary-go/produce":
				if strings.Contains(src, "ListHidden") && !strings.Contains(src, "func CheckShowingHidden(") {
					t.Errorf("%s sets ListHidden outside CheckShowingHidden", file)
				}
				continue
			}
			if strings.Contains(src, "CheckShowingHidden") || strings.Contains(src, "ListHidden") {
				t.Errorf("%s, linked into vivary-mcp, asks for the hidden paths", file)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d files checked", checked)
	}
}
