package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustGit(t *testing.T, repo string, args ...string) string {
	t.Helper()
	out, err := git(repo, args...)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// TestTag prepares a release of a two-module repository shaped like this
// one: a dirty tree is refused with nothing tagged; a clean one gets the
// adapter pinned to the new root version, and both tags at that commit.
func TestTag(t *testing.T) {
	repo := t.TempDir()
	mustGit(t, repo, "init", "-q")
	mustGit(t, repo, "config", "user.email", "release@example.invalid")
	mustGit(t, repo, "config", "user.name", "release test")
	writeFiles(t, repo, map[string]string{
		"go.mod":      "module " + RootModule + "\n\ngo 1.26\n",
		"go.work":     "go 1.26\n\nuse (\n\t.\n\t./mcp\n)\n\nreplace " + RootModule + " v0.1.0 => ./\n",
		"lib.go":      "package vivary\n",
		"mcp/go.mod":  "module " + MCPModule + "\n\ngo 1.26\n\nrequire " + RootModule + " v0.1.0\n",
		"mcp/go.sum":  "example.com/dep v1.0.0 h1:AAAA\n" + RootModule + " v0.1.0/go.mod h1:old\n",
		"mcp/main.go": "package main\n",
	})
	mustGit(t, repo, "add", "-A")
	mustGit(t, repo, "commit", "-q", "-m", "start")

	writeFiles(t, repo, map[string]string{"notes.txt": "uncommitted\n"})
	if err := Tag(repo, "v0.2.0", io.Discard); err == nil || !strings.Contains(err.Error(), "not clean") {
		t.Fatalf("a dirty tree: %v", err)
	}
	if tags := mustGit(t, repo, "tag"); tags != "" {
		t.Fatalf("a refused release tagged %q", tags)
	}
	os.Remove(filepath.Join(repo, "notes.txt"))

	if err := Tag(repo, "v0.2.0", io.Discard); err != nil {
		t.Fatal(err)
	}
	head := mustGit(t, repo, "rev-parse", "HEAD")
	for _, tag := range []string{"v0.2.0", "mcp/v0.2.0"} {
		if at := mustGit(t, repo, "rev-parse", tag+"^{commit}"); at != head {
			t.Errorf("%s is at %s, want HEAD %s", tag, at, head)
		}
	}
	if st := mustGit(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("left the tree dirty: %s", st)
	}
	gomod, _ := os.ReadFile(filepath.Join(repo, "mcp/go.mod"))
	if !strings.Contains(string(gomod), "require "+RootModule+" v0.2.0\n") || strings.Contains(string(gomod), "replace") {
		t.Errorf("mcp/go.mod:\n%s", gomod)
	}
	work, _ := os.ReadFile(filepath.Join(repo, "go.work"))
	if !strings.Contains(string(work), "replace "+RootModule+" v0.2.0 => ./\n") {
		t.Errorf("go.work:\n%s", work)
	}
	// The sums are of the root as committed, go.work included.
	root, err := readModule(repo, ".", RootModule)
	if err != nil {
		t.Fatal(err)
	}
	gosum, _ := os.ReadFile(filepath.Join(repo, "mcp/go.sum"))
	if want := "example.com/dep v1.0.0 h1:AAAA\n" + root.sums("v0.2.0"); string(gosum) != want {
		t.Errorf("mcp/go.sum:\n%s\nwant:\n%s", gosum, want)
	}
	if strings.Contains(strings.Join(root.names, " "), "mcp/") {
		t.Errorf("the root module publishes the adapter's files: %q", root.names)
	}

	if err := Tag(repo, "v0.2.0", io.Discard); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("tagging twice: %v", err)
	}
}
