package produce_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/capsule"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
)

// A workspace nested in a larger Git worktree serves nothing the enclosing
// repository ignores, through every producer, and a rule the enclosing
// repository gains between two calls of one long-running reader shows on
// the very next call.
func TestEnclosingRepositoryHidesFromEveryProducer(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // os.UserHomeDir on Windows
	t.Setenv("XDG_CONFIG_HOME", "")
	outer := filepath.Join(t.TempDir(), "outer")
	os.MkdirAll(outer, 0o755)
	testws.Git(t, outer, "init", "-q")
	testws.Write(t, outer, ".gitignore", "*.diary.md\nmid/ws/parent-ignored.md\n")
	root := testws.Thin(t, map[string]string{
		"notes/monday.diary.md":   "# Monday\n\nquokka " + marker + "\n",
		"parent-ignored.md":       "# Parent\n\nquokka " + marker + "\n",
		"notes/quokka-visible.md": "# Quokka\n\nquokka visible\n",
	})
	ws := filepath.Join(outer, "mid", "ws")
	os.MkdirAll(filepath.Dir(ws), 0o755)
	if err := os.Rename(root, ws); err != nil {
		t.Fatal(err)
	}
	time.Sleep(80 * time.Millisecond) // past the racy window, so the stamps must tell
	r := produce.NewReader(bindWS(t, ws))
	q := func() string {
		t.Helper()
		res, err := r.Query(bg, produce.QueryArgs{Text: "quokka", Limit: 10, SnippetChars: 160})
		if err != nil {
			t.Fatal(err)
		}
		noLeak(t, ws, jsonOf(t, res))
		return ids(res)
	}
	if got := q(); got != "quokka-visible" {
		t.Fatalf("query ids %q", got)
	}
	f, err := r.Find(bg, produce.FindArgs{Question: "quokka", Limit: 10, Budget: 1200})
	if err != nil {
		t.Fatal(err)
	}
	noLeak(t, ws, jsonOf(t, f))
	c, err := r.Check(bg, produce.CheckArgs{})
	if err != nil {
		t.Fatal(err)
	}
	b := jsonOf(t, c)
	noLeak(t, ws, b)
	if strings.Contains(string(b), "diary") || strings.Contains(string(b), "parent-ignored") {
		t.Fatalf("check names an ignored file:\n%s", b)
	}
	_, err = r.Query(bg, produce.QueryArgs{Text: "quokka", Limit: 10, Filters: produce.Filters{Path: []string{"parent-ignored.md"}}})
	if reason.Of(err) != reason.PathRefused {
		t.Fatalf("a path filter naming an enclosing-ignored file: %v", err)
	}
	// Rules gained above the workspace, each taken back before the next.
	steps := []struct {
		name       string
		ignore, un func()
	}{
		{"the worktree root's .gitignore", func() {
			testws.Write(t, outer, ".gitignore", "*.diary.md\nmid/ws/parent-ignored.md\nquokka-visible.md\n")
		},
			func() { testws.Write(t, outer, ".gitignore", "*.diary.md\nmid/ws/parent-ignored.md\n") }},
		{"a .gitignore between the worktree root and the workspace", func() { testws.Write(t, outer, "mid/.gitignore", "notes/\n") },
			func() { os.Remove(filepath.Join(outer, "mid/.gitignore")) }},
		{"the enclosing info/exclude", func() { testws.Write(t, outer, ".git/info/exclude", "mid/ws/notes/\n") },
			func() { testws.Write(t, outer, ".git/info/exclude", "") }},
		{"the user's excludes file", func() { testws.Write(t, home, ".config/git/ignore", "quokka-visible.md\n") },
			func() { os.Remove(filepath.Join(home, ".config/git/ignore")) }},
	}
	for _, st := range steps {
		time.Sleep(80 * time.Millisecond)
		q()
		st.ignore()
		if got := q(); got != "" {
			t.Fatalf("%s: newly ignored file still served (%s)", st.name, got)
		}
		time.Sleep(80 * time.Millisecond)
		q()
		st.un()
		if got := q(); got != "quokka-visible" {
			t.Fatalf("%s: file no longer ignored not served (%s)", st.name, got)
		}
	}
	// The capsule still refuses a nested root.
	if _, err := capsule.Compile(bg, r, capsule.Args{Question: "quokka", MaxClaims: 24}); reason.Of(err) != reason.ProducerUnavailable {
		t.Fatalf("capsule over a nested root: %v", err)
	}
}

// Outside Git a nested copy of the block hides its folder's runtime files,
// and a nested .gitignore with rules of its own, added between two calls of
// one reader, refuses the next call.
func TestNestedIgnoreFilesOutsideGit(t *testing.T) {
	t.Parallel()
	root := testws.Thin(t, map[string]string{
		"sub/.gitignore":                 policy.GitignoreBlock,
		"sub/.vivary/runtime/session.md": "# Session\n\nquokka " + marker + "\n",
		"sub/quokka.md":                  "# Quokka\n\nquokka\n",
	})
	time.Sleep(80 * time.Millisecond)
	r := produce.NewReader(bindWS(t, root))
	res, err := r.Query(bg, produce.QueryArgs{Text: "quokka", Limit: 10, SnippetChars: 160})
	if err != nil {
		t.Fatal(err)
	}
	noLeak(t, root, jsonOf(t, res))
	if ids(res) != "quokka" {
		t.Fatalf("ids %q", ids(res))
	}
	testws.Write(t, root, "notes/.gitignore", "diary.md\n")
	_, err = r.Query(bg, produce.QueryArgs{Text: "quokka", Limit: 10})
	if reason.Of(err) != reason.PrivacyPolicyUnavailable || !strings.Contains(err.Error(), "git init") {
		t.Fatalf("after a nested .gitignore with its own rules: %v", err)
	}
	if _, err := r.Check(bg, produce.CheckArgs{}); reason.Of(err) != reason.PrivacyPolicyUnavailable {
		t.Fatalf("check: %v", err)
	}
}
