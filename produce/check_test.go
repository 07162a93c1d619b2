package produce_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
)

func TestCheckGolden(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	before := testws.Hash(t, root)
	res, err := produce.Check(bg, bindWS(t, root), produce.CheckArgs{})
	if err != nil {
		t.Fatal(err)
	}
	b := jsonOf(t, res)
	golden(t, "check.golden.json", b)
	noLeak(t, root, b)
	if testws.Hash(t, root) != before {
		t.Fatal("check changed the workspace")
	}
	// A second call over the same tree is byte-identical.
	res2, _ := produce.Check(bg, bindWS(t, root), produce.CheckArgs{})
	if string(jsonOf(t, res2)) != string(b) {
		t.Fatal("check is not deterministic")
	}
}

func TestCheckPaths(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	ws := bindWS(t, root)
	res, err := produce.Check(bg, ws, produce.CheckArgs{Paths: []string{"decisions", "nope.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Checked != 2 || res.Complete || !strings.Contains(fmt.Sprint(res.Omissions), "{selection path_not_found 1}") {
		t.Fatalf("%+v", res)
	}
	for _, bad := range [][]string{{"../x"}, {"/etc"}, {"a//b"}, {"a\\b"}, {".env"}, {"notes/api-token.md"}, {"a", "a"}, {"x/"}} {
		if _, err := produce.Check(bg, ws, produce.CheckArgs{Paths: bad}); reason.Of(err) != reason.PathRefused {
			t.Errorf("%q: %v", bad, err)
		}
	}
	many := make([]string, 201)
	for i := range many {
		many[i] = fmt.Sprintf("p%d.md", i)
	}
	if _, err := produce.Check(bg, ws, produce.CheckArgs{Paths: many}); reason.Of(err) != reason.InvalidArguments {
		t.Errorf("201 paths: %v", err)
	}
	if _, err := produce.Check(bg, ws, produce.CheckArgs{Paths: many[:200]}); err != nil {
		t.Errorf("200 paths: %v", err)
	}
}

// TestPathRefusalShowsOnlySafePaths tries to get a refused path back into
// the refusal: a secret-looking name in any disguise (look-alike letters,
// percent-encoding, full-width forms), a credential as a file name, a
// control character, the workspace's own absolute path. The message names
// the item and the rule; it repeats the path only when the path is a plain,
// printable, not secret-looking name.
func TestPathRefusalShowsOnlySafePaths(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	ws := bindWS(t, root)
	for _, c := range []struct {
		path  string
		shown bool
	}{
		{"../x", true},
		{"notes/../../etc", true},
		{"a//b", true},
		{"notes/.env", false},
		{"notes/s\u0435cret.md", false}, // Cyrillic е
		{"notes/%73ecret.md", false},
		{"notes/\uff33\uff25\uff23\uff32\uff25\uff34.md", false}, // full-width SECRET
		{"notes/AKIAIOSFODNN7EXAMPLE.md", false},
		{"notes/ghp_16C7e42F292c6912E7710c838347Ae178B4a/x.md", false},
		{"notes/a\tb.md/..", false},
		{"notes/a\u200bb/..", false},
		{root + "/notes", false},
		{"notes/" + strings.TrimPrefix(root, "/") + "/..", false},
	} {
		p := c.path
		if (strings.Contains(p, "\\u") || strings.Contains(p, "\\t")) && !strings.Contains(p, strings.TrimPrefix(root, "/")) {
			p = unquote(t, p)
		}
		for _, s := range []produce.Spelling{produce.JSONKeys, produce.Flags} {
			_, err := produce.Check(bg, ws, produce.CheckArgs{Paths: []string{"STATE.md", p}, Spelling: s})
			msg := fmt.Sprint(err)
			if reason.Of(err) != reason.PathRefused || !strings.Contains(msg, map[produce.Spelling]string{produce.JSONKeys: "paths[1]", produce.Flags: "--path 2 of 2"}[s]) {
				t.Errorf("%q: %v, want path_refused naming the second path", p, err)
			}
			if shown := strings.Contains(msg, fmt.Sprintf("%q", p)); shown != c.shown {
				t.Errorf("%q shown %v, want %v: %s", p, shown, c.shown, msg)
			}
			if strings.Contains(msg, root) || (!c.shown && strings.Contains(msg, p)) {
				t.Errorf("%q: the refusal repeats it: %s", p, msg)
			}
		}
	}
}

func unquote(t *testing.T, s string) string {
	t.Helper()
	u, err := strconv.Unquote(`"` + s + `"`)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestCheckStrictIsReported(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	f := false
	res, err := produce.Check(bg, bindWS(t, root), produce.CheckArgs{Strict: &f})
	if err != nil || res.Strict {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestSnapshotRefusals(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		mutate func(t *testing.T, root string)
		want   reason.Code
	}{
		"gitignore one byte off": {func(t *testing.T, root string) {
			testws.Write(t, root, ".gitignore", "# >>> vivary private/runtime >>>\n.vivary/private/\n.vivary/runtime/\n*.vivary-tmp\n# <<< vivary private/runtime <<<")
		}, reason.PrivacyPolicyUnavailable},
		"malformed workspace.toml": {func(t *testing.T, root string) {
			testws.Write(t, root, ".vivary/workspace.toml", "version = [\n")
		}, reason.PrivacyPolicyUnavailable},
		"workspace.toml not a file": {func(t *testing.T, root string) {
			p := filepath.Join(root, ".vivary/workspace.toml")
			os.Remove(p)
			os.Mkdir(p, 0o755)
		}, reason.PrivacyPolicyUnavailable},
		"workspace.toml a FIFO": {func(t *testing.T, root string) {
			p := filepath.Join(root, ".vivary/workspace.toml")
			os.Remove(p)
			mkfifo(t, p)
		}, reason.PrivacyPolicyUnavailable},
		"linked workspace.toml": {func(t *testing.T, root string) {
			p := filepath.Join(root, ".vivary/workspace.toml")
			os.Rename(p, filepath.Join(root, "ws.toml"))
			os.Symlink("../ws.toml", p)
		}, reason.PrivacyPolicyUnavailable},
		"loosening overlay": {func(t *testing.T, root string) {
			testws.Write(t, root, "tropo.toml", "[base]\nstrict = false\n")
		}, reason.PrivacyPolicyUnavailable},
		"invalid overlay": {func(t *testing.T, root string) { testws.Write(t, root, "tropo.toml", "[base\n") }, reason.PrivacyPolicyUnavailable},
		"linked overlay": {func(t *testing.T, root string) {
			testws.Write(t, root, "o.txt", "")
			os.Symlink("o.txt", filepath.Join(root, "tropo.toml"))
		}, reason.PrivacyPolicyUnavailable},
		"credential in workspace.toml": {func(t *testing.T, root string) {
			p := filepath.Join(root, ".vivary/workspace.toml")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, append(b, []byte("# password = hunter2\n")...), 0o644)
		}, reason.PrivacyPolicyUnavailable},
		"workspace.toml over 1 MiB": {func(t *testing.T, root string) {
			p := filepath.Join(root, ".vivary/workspace.toml")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, append(b, []byte("#"+strings.Repeat("x", 1<<20)+"\n")...), 0o644)
		}, reason.WorkLimitExceeded},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			root := fixture(t)
			c.mutate(t, root)
			before := testws.Hash(t, root)
			_, err := produce.Check(bg, bindWS(t, root), produce.CheckArgs{})
			if reason.Of(err) != c.want {
				t.Fatalf("got %v, want %s", err, c.want)
			}
			if strings.Contains(err.Error(), root) {
				t.Errorf("error names the root: %v", err)
			}
			if testws.Hash(t, root) != before {
				t.Fatal("a refused call changed the tree")
			}
		})
	}
}

// A Markdown file over 1 MiB costs that one document: the check answers,
// incomplete, with one too_large omission.
func TestMarkdownOver1MiBIsOmitted(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	testws.Write(t, root, "notes/big.md", "# Big\n\n"+strings.Repeat("x", 1<<20))
	testws.Write(t, root, "notes/edge.md", "# Edge\n\n"+strings.Repeat("x", 1<<20-8))
	res, err := produce.Check(bg, bindWS(t, root), produce.CheckArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete || !strings.Contains(fmt.Sprint(res.Omissions), "{document too_large 1}") {
		t.Fatalf("complete %v, omissions %v", res.Complete, res.Omissions)
	}
	q, err := produce.Query(bg, bindWS(t, root), produce.QueryArgs{Text: "edge", Limit: 5})
	if err != nil || !strings.Contains(ids(q), "edge") {
		t.Fatalf("the file of exactly 1 MiB is not served: %v %s", err, ids(q))
	}
}

// An excluded folder is pruned: never entered, counted once.
func TestOverlayTightens(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	testws.Write(t, root, "tropo.toml", "exclude = [\"notes\", \"decisions/broken.md\"]\n")
	res, err := produce.Check(bg, bindWS(t, root), produce.CheckArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(res.Omissions), "{document config_excluded 2}") {
		t.Fatalf("omissions %v", res.Omissions)
	}
}

func TestLinksAndSpecialFilesAreOmitted(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	outside := filepath.Join(t.TempDir(), "o.md")
	os.WriteFile(outside, []byte("# Outside\n\n"+marker+"\n"), 0o644)
	os.Symlink(outside, filepath.Join(root, "notes", "link.md"))
	os.Link(outside, filepath.Join(root, "notes", "hard.md"))
	res, err := produce.Check(bg, bindWS(t, root), produce.CheckArgs{})
	if err != nil {
		t.Fatal(err)
	}
	s := fmt.Sprint(res.Omissions)
	if !strings.Contains(s, "{filesystem link_or_reparse 1}") || !strings.Contains(s, "{document hard_link_or_nonregular 1}") {
		t.Fatalf("omissions %v", s)
	}
	noLeak(t, root, jsonOf(t, res))
}

func TestGitWorkspace(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	os.Remove(filepath.Join(root, ".gitignore"))
	testws.Write(t, root, ".gitignore", ".vivary/private/\n.vivary/runtime/\n*.vivary-tmp\nnotes/\n!notes/untyped.md\n")
	testws.Git(t, root, "init", "-q")
	res, err := produce.Check(bg, bindWS(t, root), produce.CheckArgs{})
	if err != nil {
		t.Fatal(err)
	}
	b := jsonOf(t, res)
	noLeak(t, root, b)
	if !strings.Contains(fmt.Sprint(res.Omissions), "privacy_excluded git_ignored") {
		t.Fatalf("omissions %v", res.Omissions)
	}
}
