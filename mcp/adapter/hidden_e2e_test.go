package adapter_test

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vivary-dev/vivary-go/internal/testws"
)

// The owner's view of what is hidden (vivary check --show-hidden) is never
// served: no tool takes an argument that asks for it, and no answer names
// a hidden path, its rule's detail or a credential's class; what is hidden
// is only counted. A note named in Persian, whose zero-width non-joiner is
// its spelling, is served like any other.
func TestTheOwnersViewIsNotServed(t *testing.T) {
	t.Parallel()
	persian := "کتاب\u200cها/نرم\u200cافزار.md"
	root := testws.Thin(t, map[string]string{
		"notes/ok.md":                   "# Quokka notes\n\nquokka\n",
		"notes/secret-plan.md":          "# Quokka plan\n\nquokka\n",
		"notes/AKIAIOSFODNN7EXAMPLE.md": "# Quokka key\n\nquokka\n",
		"notes/leak.md":                 "# Quokka leak\n\nquokka sk_live_4eC39HqLyjWDarjtT1zdp7dc\n",
		"drafts/quokka-draft.md":        "# Quokka draft\n\nquokka\n",
		"notes/quokka.draft.md":         "# Quokka draft\n\nquokka\n",
		"notes/quok\u202eka.md":         "# Quokka bidi\n\nquokka\n",
		persian:                         "# نرم\u200cافزار\n\nquokka\n",
	})
	testws.Write(t, root, ".gitignore", testws.Read(t, root, ".gitignore")+"drafts/\n*.draft.md\n")
	testws.Git(t, root, "init", "-q")
	if err := os.Symlink("ok.md", filepath.Join(root, "notes/linked-quokka.md")); err != nil {
		t.Fatal(err)
	}
	s := start(t, opts{}, root)
	for _, args := range []map[string]any{
		{"workspace": "ws0", "show_hidden": true},
		{"workspace": "ws0", "hidden": true},
		{"workspace": "ws0", "list_hidden": true},
	} {
		_, _, err := s.call("vivary_check", args)
		if je := (*jsonrpc.Error)(nil); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("vivary_check %v: %v", args, err)
		}
	}
	found := false
	for tool, args := range map[string]map[string]any{
		"vivary_find":    {"workspace": "ws0", "question": "quokka", "limit": 20},
		"vivary_query":   {"workspace": "ws0", "text": "quokka", "limit": 20, "explain": true},
		"vivary_check":   {"workspace": "ws0"},
		"vivary_capsule": {"workspace": "ws0", "question": "quokka"},
	} {
		res, e, err := s.call(tool, args)
		if err != nil || e.Status != "known" {
			t.Fatalf("%s: %v %+v", tool, err, e)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		for _, hidden := range []string{"secret-plan", "AKIA", "leak", "sk_live", "stripe", "draft", "linked-quokka", "\u202e", `\u202e`, `\u202E`, `"line":`} {
			if strings.Contains(text, hidden) {
				t.Errorf("%s names %q: %s", tool, hidden, text)
			}
		}
		if tool == "vivary_check" && (!strings.Contains(text, `"sensitive_content"`) || !strings.Contains(text, `"git_ignored"`) || !strings.Contains(text, `"unsafe_path"`)) {
			t.Errorf("vivary_check does not count what is hidden: %s", text)
		}
		found = found || strings.Contains(text, persian)
	}
	if !found {
		t.Error("the Persian note was not served")
	}
}

// A folder the server's user may not open is left out whole and counted,
// and the rest of the workspace is answered (as an unprivileged user, so
// the permissions bite where the tests run as root).
func TestAnUnreadableFolderIsCounted(t *testing.T) {
	t.Parallel()
	root := testws.Thin(t, map[string]string{
		"notes/open.md":    "# Quokka open\n\nquokka\n",
		"locked/inside.md": "# Quokka inside\n\nquokka\n",
	})
	if err := os.Chmod(filepath.Join(root, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked"), 0o755) })
	s := startAs(t, nobodyEnv(root), root)
	res, e, err := s.call("vivary_find", map[string]any{"workspace": "ws0", "question": "quokka"})
	if err != nil || e.Status != "known" {
		t.Fatalf("vivary_find: %v %+v", err, e)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "notes/open.md") || strings.Contains(text, "inside") || strings.Contains(text, "locked") ||
		!strings.Contains(text, `{"count":1,"kind":"filesystem","reason":"unreadable"}`) {
		t.Fatalf("vivary_find: %s", text)
	}
	// Opened to the server's user, the folder is read by the next call.
	if err := os.Chmod(filepath.Join(root, "locked"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, e, err = s.call("vivary_find", map[string]any{"workspace": "ws0", "question": "quokka"})
	if err != nil || e.Status != "known" {
		t.Fatalf("vivary_find: %v %+v", err, e)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "locked/inside.md") || strings.Contains(text, "unreadable") {
		t.Fatalf("after chmod: %s", text)
	}
}

// A path beneath a folder the server's user may not open is answered as a
// path beneath a folder that does not exist, in a check's paths and a
// query's path filters, in Git and outside it: nothing there can be read,
// so the call is not refused for it, and no answer tells an unreadable
// folder from a missing one (the folder is only counted).
func TestAPathInAnUnreadableFolderIsAnAbsentOne(t *testing.T) {
	t.Parallel()
	for _, git := range []bool{false, true} {
		root := testws.Thin(t, map[string]string{
			"notes/open.md":     "# Quokka open\n\nquokka\n",
			"locked/inside.md":  "# Quokka inside\n\nquokka\n",
			"locked/.gitignore": "*.md\n",
		})
		if git {
			testws.Git(t, root, "init", "-q")
			if os.Getuid() == 0 {
				// Git refuses a repository another user owns.
				filepath.WalkDir(root, func(p string, _ fs.DirEntry, _ error) error { return os.Lchown(p, 65534, 65534) })
			}
		}
		if err := os.Chmod(filepath.Join(root, "locked"), 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked"), 0o755) })
		s := startAs(t, nobodyEnv(root), root)
		for _, c := range []struct {
			tool, arg string
			extra     map[string]any
		}{
			{"vivary_check", "paths", nil},
			{"vivary_query", "path_filters", map[string]any{"text": "quokka"}},
		} {
			answer := func(path string) string {
				args := map[string]any{"workspace": "ws0", c.arg: []string{path}}
				maps.Copy(args, c.extra)
				res, e, err := s.call(c.tool, args)
				if err != nil || e.Status != "known" {
					t.Fatalf("git %v, %s %s: %v %+v", git, c.tool, path, err, e)
				}
				text := res.Content[0].(*mcp.TextContent).Text
				return strings.ReplaceAll(text, path, "P")
			}
			for _, p := range []string{"locked/inside.md", "locked", "locked/sub/x.md"} {
				absent := "absent" + strings.TrimPrefix(p, "locked")
				if got, want := answer(p), answer(absent); got != want {
					t.Errorf("git %v, %s %s answers\n%s\nbut %s\n%s", git, c.tool, p, got, absent, want)
				}
			}
		}
	}
}

// nobodyEnv is startAs's env for a server that runs as nobody when the
// tests run as root: it must then reach its binary and the workspace
// through folders others may search.
func nobodyEnv(root string) []string {
	if os.Getuid() != 0 {
		return nil
	}
	for _, p := range []string{filepath.Dir(bin), root} {
		for dir := p; dir != "/" && dir != os.TempDir(); dir = filepath.Dir(dir) {
			if st, err := os.Stat(dir); err == nil {
				os.Chmod(dir, st.Mode().Perm()|0o005)
			}
		}
	}
	return []string{"VIVARY_TEST_AS_NOBODY=1"}
}

// An ignore file Git may not read (no read permission for the server's
// user) hides what it hides all the same: Git goes on without it, with
// only a warning, so the call is refused rather than served with its
// rules missing, whether it is a folder's .gitignore, the root's or
// .git/info/exclude.
func TestAnIgnoreFileGitCannotReadRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, rule string }{
		{"notes/.gitignore", "quokka-draft.md\n"},
		{".gitignore", "notes/quokka-draft.md\n"},
		{".git/info/exclude", "notes/quokka-draft.md\n"},
	} {
		root := testws.Thin(t, map[string]string{
			"notes/open.md":         "# Quokka open\n\nquokka\n",
			"notes/quokka-draft.md": "# Quokka draft\n\nquokka\n",
		})
		testws.Git(t, root, "init", "-q")
		old, _ := os.ReadFile(filepath.Join(root, c.file))
		testws.Write(t, root, c.file, string(old)+c.rule)
		if os.Getuid() == 0 {
			// Git refuses a repository another user owns.
			filepath.WalkDir(root, func(p string, _ fs.DirEntry, _ error) error { return os.Lchown(p, 65534, 65534) })
		}
		if err := os.Chmod(filepath.Join(root, c.file), 0); err != nil {
			t.Fatal(err)
		}
		s := startAs(t, nobodyEnv(root), root)
		res, e, err := s.call("vivary_find", map[string]any{"workspace": "ws0", "question": "quokka"})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if e.Status == "known" || e.Reason == nil || *e.Reason != "privacy_policy_unavailable" || strings.Contains(text, "draft") {
			t.Errorf("%s unreadable: %s", c.file, text)
		}
	}
}

// A path argument that names a hidden document (ignored, secret-looking
// however disguised, in a secret-looking folder, unsafe, too large, holding
// a credential) is answered exactly as the same path to a document that
// does not exist: no check path or query path filter tells an agent that
// something is there. (An attack pass compared 336 such pairs; these are
// their representatives.)
func TestAHiddenPathAnswersAsAMissingOne(t *testing.T) {
	t.Parallel()
	hidden := []string{
		"drafts/quokka-one.md", "notes/quokka-one.draft.md", ".e\u200bnv-quokka-one.md", "id_\u200crsa-quokka-one.md",
		"secrets/quokka-one.md", "se\u200ccrets/quokka-one.md", "tⲟken-quokka-one.md", "n\u202equokka-one.md",
		"notes/quokka-one-leak.md", "notes/quokka-one-big.md",
	}
	files := map[string]string{"notes/open.md": "# Quokka open\n\nquokka\n"}
	for _, p := range hidden {
		files[p] = "# Quokka hidden\n\nquokka\n"
	}
	files["notes/quokka-one-leak.md"] = "# Quokka\n\nquokka sk_live_4eC39HqLyjWDarjtT1zdp7dc\n"
	files["notes/quokka-one-big.md"] = "# Quokka\n\n" + strings.Repeat("quokka ", 1<<18)
	root := testws.Thin(t, files)
	testws.Write(t, root, ".gitignore", testws.Read(t, root, ".gitignore")+"drafts/\n*.draft.md\n")
	testws.Git(t, root, "init", "-q")
	s := start(t, opts{}, root)
	for _, p := range hidden {
		twin := strings.Replace(p, "quokka-one", "quokka-two", 1)
		for _, c := range []struct{ tool, arg string }{{"vivary_check", "paths"}, {"vivary_query", "path_filters"}} {
			answer := func(path string) string {
				args := map[string]any{"workspace": "ws0", c.arg: []string{path}}
				if c.tool == "vivary_query" {
					args["text"] = "quokka"
				}
				res, _, err := s.call(c.tool, args)
				if err != nil {
					return err.Error()
				}
				return strings.ReplaceAll(res.Content[0].(*mcp.TextContent).Text, path, "P")
			}
			if got, want := answer(p), answer(twin); got != want {
				t.Errorf("%s %+q answers\n%s\nbut %+q\n%s", c.tool, p, got, twin, want)
			}
		}
	}
}
