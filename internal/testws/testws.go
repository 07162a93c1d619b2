// Package testws builds throwaway workspaces for tests: a scaffolded thin
// workspace in a temp dir, extra files, git repos, and a tree hash that
// proves a read left every byte and name as it was.
package testws

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Thin scaffolds the five greenfield files into a new temp dir and writes
// the extra files (path -> content) over them.
func Thin(t testing.TB, extra map[string]string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "proj")
	if err := Scaffold(root, extra); err != nil {
		t.Fatal(err)
	}
	return root
}

// Scaffold is Thin into root, for a caller without a testing.TB (an
// example): the five greenfield files, then the extra files over them.
func Scaffold(root string, extra map[string]string) error {
	for _, f := range scaffold.Files(scaffold.ProjectName(root), scaffold.DefaultPreset) {
		if err := writeFile(root, f.Path, f.Content); err != nil {
			return err
		}
	}
	for p, c := range extra {
		if err := writeFile(root, p, c); err != nil {
			return err
		}
	}
	return nil
}

// Write writes one file, creating its directories.
func Write(t testing.TB, root, rel, content string) {
	t.Helper()
	if err := writeFile(root, rel, content); err != nil {
		t.Fatal(err)
	}
}

// Read returns the text of the file rel beneath root.
func Read(t testing.TB, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(root, rel, content string) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// Git runs git in root with a clean identity and fails the test on error.
func Git(t testing.TB, root string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.test", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.test")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Hash is a digest of every name, mode, link target and file byte under root.
func Hash(t testing.TB, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := rel + " " + info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := sha256.Sum256(b)
			line += " " + hex.EncodeToString(s[:])
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	s := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(s[:])
}

// Bind binds root and closes it when the test ends.
func Bind(t testing.TB, root string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Bind(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}
