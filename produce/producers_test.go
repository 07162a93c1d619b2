package produce_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

func ids(res *produce.QueryResult) string {
	var out []string
	for _, h := range res.Results {
		out = append(out, h.ID)
	}
	return strings.Join(out, ",")
}

func TestQueryGolden(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	before := testws.Hash(t, root)
	r := produce.NewReader(bindWS(t, root))
	cases := []struct {
		name string
		args produce.QueryArgs
	}{
		{"query_plain.golden.json", produce.QueryArgs{Text: "git ignore rules", Limit: 10, SnippetChars: 160}},
		{"query_explain.golden.json", produce.QueryArgs{Text: "adapter", Limit: 10, SnippetChars: 60, Explain: true}},
		{"query_filters.golden.json", produce.QueryArgs{Text: "earned operational proof", Limit: 10, SnippetChars: 160,
			Filters: produce.Filters{Type: []string{"change"}}}},
		{"query_edges.golden.json", produce.QueryArgs{Text: "privacy", Limit: 10, SnippetChars: 0,
			Filters: produce.Filters{Edge: []string{"related_changes:greenfield-mcp-proof"}, Path: []string{".vivary/records/*"}}}},
	}
	for _, c := range cases {
		res, err := r.Query(bg, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b := jsonOf(t, res)
		golden(t, c.name, b)
		noLeak(t, root, b)
	}
	if testws.Hash(t, root) != before {
		t.Fatal("query changed the workspace")
	}
}

func TestQueryScoringExample(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	res, err := produce.Query(bg, bindWS(t, root), produce.QueryArgs{Text: "earned operational proof", Limit: 10, SnippetChars: 160, Filters: produce.Filters{Type: []string{"change"}}})
	if err != nil {
		t.Fatal(err)
	}
	if ids(res) != "greenfield-mcp-proof" {
		t.Fatalf("ids %s", ids(res))
	}
	// The title holds the whole question: every other hit scores below it.
	all, err := produce.Query(bg, bindWS(t, root), produce.QueryArgs{Text: "earned operational proof", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if all.Results[0].ID != "greenfield-mcp-proof" || all.Results[0].Score != res.Results[0].Score {
		t.Fatalf("unfiltered top %+v, filtered score %d", all.Results[0], res.Results[0].Score)
	}
	for _, h := range all.Results[1:] {
		if h.Score < 1 || h.Score >= res.Results[0].Score {
			t.Errorf("%s scores %d beside %d", h.ID, h.Score, res.Results[0].Score)
		}
	}
}

func TestFindGoldenAndBudget(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	r := produce.NewReader(bindWS(t, root))
	res, err := r.Find(bg, produce.FindArgs{Question: "privacy policy adapter", Limit: 5, Budget: 1200})
	if err != nil {
		t.Fatal(err)
	}
	b := jsonOf(t, res)
	golden(t, "find.golden.json", b)
	noLeak(t, root, b)
	if res.EstimatedTokens <= 0 || res.EstimatedTokens > res.Budget || !res.Complete {
		t.Fatalf("tokens %d complete %v", res.EstimatedTokens, res.Complete)
	}
	// The budget boundary: exactly the cost of the first hit fits it alone.
	first, _ := produce.TokenCost(res.Results[0])
	if first < 64 {
		t.Skipf("first hit costs %d, under the minimum budget", first)
	}
	tight, err := r.Find(bg, produce.FindArgs{Question: "privacy policy adapter", Limit: 5, Budget: first})
	if err != nil {
		t.Fatal(err)
	}
	if len(tight.Results) != 1 || tight.EstimatedTokens != first || tight.Complete ||
		!strings.Contains(fmt.Sprint(tight.Omissions), fmt.Sprintf("{result budget_limit %d}", len(res.Results)-1)) {
		t.Fatalf("at budget %d: %d results, %d tokens, %v", first, len(tight.Results), tight.EstimatedTokens, tight.Omissions)
	}
	under, _ := r.Find(bg, produce.FindArgs{Question: "privacy policy adapter", Limit: 5, Budget: first - 1})
	if len(under.Results) != 0 || under.EstimatedTokens != 0 {
		t.Fatalf("at budget %d: %d results", first-1, len(under.Results))
	}
}

func TestArgumentBoundaries(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	r := produce.NewReader(bindWS(t, root))
	long := strings.Repeat("é", 4096)
	type call func() error
	q := func(a produce.QueryArgs) call {
		return func() error {
			if a.Limit == 0 {
				a.Limit = 10
			}
			_, err := r.Query(bg, a)
			return err
		}
	}
	f16 := make([]string, 16)
	for i := range f16 {
		f16[i] = fmt.Sprintf("t%d", i)
	}
	for _, c := range []struct {
		name string
		fn   call
		want reason.Code
	}{
		{"text 4096", q(produce.QueryArgs{Text: long}), ""},
		{"text 4097", q(produce.QueryArgs{Text: long + "é"}), reason.InvalidArguments},
		{"whitespace", q(produce.QueryArgs{Text: " \t "}), reason.InvalidArguments},
		{"newline", q(produce.QueryArgs{Text: "a\nb"}), reason.PathRefused},
		{"absolute path", q(produce.QueryArgs{Text: "see /etc/passwd"}), reason.PathRefused},
		{"the root", q(produce.QueryArgs{Text: "in " + root}), reason.PathRefused},
		{"credential", q(produce.QueryArgs{Text: "password=hunter2"}), reason.PathRefused},
		{"limit 20", q(produce.QueryArgs{Text: "x", Limit: 20}), ""},
		{"limit 21", q(produce.QueryArgs{Text: "x", Limit: 21}), reason.InvalidArguments},
		{"snippet 1000", q(produce.QueryArgs{Text: "x", SnippetChars: 1000}), ""},
		{"snippet 1001", q(produce.QueryArgs{Text: "x", SnippetChars: 1001}), reason.InvalidArguments},
		{"16 filters", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Type: f16}}), ""},
		{"17 filters", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Type: append(f16, "x")}}), reason.InvalidArguments},
		{"duplicate filter", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Path: []string{"a", "a"}}}), reason.InvalidArguments},
		{"dotdot path filter", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Path: []string{"../*"}}}), reason.PathRefused},
		{"absolute path filter", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Path: []string{"/etc/*"}}}), reason.PathRefused},
		{"secret path filter", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Path: []string{".env*"}}}), reason.PathRefused},
		{"ignored-looking path filter", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Path: []string{".vivary/private/*"}}}), reason.PathRefused},
		{"empty edge field", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Edge: []string{":target"}}}), reason.PathRefused},
		{"empty edge target", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Edge: []string{"field:"}}}), reason.PathRefused},
		{"blank edge target", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Edge: []string{"field: "}}}), reason.PathRefused},
		{"blank edge field", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Edge: []string{" "}}}), reason.PathRefused},
		{"edge field only", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Edge: []string{"field"}}}), ""},
		{"edge field and target", q(produce.QueryArgs{Text: "x", Filters: produce.Filters{Edge: []string{" field : target "}}}), ""},
		{"separator-only text", q(produce.QueryArgs{Text: "\x1c\u3000"}), reason.InvalidArguments},
		{"find budget 63", func() error {
			_, err := r.Find(bg, produce.FindArgs{Question: "x", Limit: 5, Budget: 63})
			return err
		}, reason.InvalidArguments},
		{"find budget 64", func() error {
			_, err := r.Find(bg, produce.FindArgs{Question: "x", Limit: 5, Budget: 64})
			return err
		}, ""},
		{"find budget 4001", func() error {
			_, err := r.Find(bg, produce.FindArgs{Question: "x", Limit: 5, Budget: 4001})
			return err
		}, reason.InvalidArguments},
	} {
		err := c.fn()
		got := reason.Code("")
		if err != nil {
			got = reason.Of(err)
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), root) || strings.Contains(err.Error(), "passwd") {
				t.Errorf("%s: the error repeats the value: %v", c.name, err)
			}
		}
		if got != c.want {
			t.Errorf("%s: got %q (%v), want %q", c.name, got, err, c.want)
		}
	}
}

func TestSnippetBoundaries(t *testing.T) {
	t.Parallel()
	root := testws.Thin(t, map[string]string{"notes/long.md": "# Long\n\n" + strings.Repeat("word ", 100) + "needle " + strings.Repeat("tail ", 100)})
	r := produce.NewReader(bindWS(t, root))
	for _, n := range []int{0, 1, 20, 1000} {
		res, err := r.Query(bg, produce.QueryArgs{Text: "needle", Limit: 1, SnippetChars: n})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Results[0].Snippet
		if n == 0 {
			if s != nil {
				t.Fatalf("snippet at 0: %q", *s)
			}
			continue
		}
		if s == nil || len([]rune(*s)) > n+6 {
			t.Fatalf("snippet at %d: %v", n, s)
		}
		if n == 20 && !strings.Contains(*s, "needle") {
			t.Fatalf("window misses the match: %q", *s)
		}
	}
}

func TestResultLimit(t *testing.T) {
	t.Parallel()
	extra := map[string]string{}
	for i := 0; i < 25; i++ {
		extra[fmt.Sprintf("notes/n%02d.md", i)] = "# Alpha\n"
	}
	r := produce.NewReader(bindWS(t, testws.Thin(t, extra)))
	for _, k := range []int{1, 20} {
		res, err := r.Query(bg, produce.QueryArgs{Text: "alpha", Limit: k, SnippetChars: 10})
		if err != nil || len(res.Results) != k {
			t.Fatalf("limit %d: %v %d", k, err, len(res.Results))
		}
	}
}

// Every change to the tree shows on the very next call of a warm Reader,
// revalidated by stat or by the kernel's change feed.
func TestFreshness(t *testing.T) {
	t.Parallel()
	for name, newReader := range map[string]func(*workspace.Workspace) *produce.Reader{
		"stat": produce.NewReader, "feed": produce.NewServingReader,
	} {
		t.Run(name, func(t *testing.T) { testFreshness(t, newReader) })
	}
}

func testFreshness(t *testing.T, newReader func(*workspace.Workspace) *produce.Reader) {
	root := fixture(t)
	r := newReader(bindWS(t, root))
	defer r.Close()
	query := func() *produce.QueryResult {
		res, err := r.Query(bg, produce.QueryArgs{Text: "quokka", Limit: 10, SnippetChars: 40})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	settle := func() { time.Sleep(80 * time.Millisecond) } // past the racy window
	testws.Write(t, root, "notes/quokka.md", "# Quokka\n\nfirst\n")
	settle()
	if ids(query()) != "quokka" {
		t.Fatal("added file missing")
	}
	fp := query().WorkspaceFingerprint
	settle()
	// Same size, same second: a rewrite must still show.
	testws.Write(t, root, "notes/quokka.md", "# Quokka\n\nFIRST\n")
	if res := query(); res.WorkspaceFingerprint == fp || !strings.Contains(*res.Results[0].Snippet, "FIRST") {
		t.Fatal("changed file not seen")
	}
	settle()
	query()
	testws.Write(t, root, "notes/wallaby.md", "# Wallaby\n\nquokka friend\n")
	if ids(query()) != "quokka,wallaby" {
		t.Fatalf("added file not seen: %s", ids(query()))
	}
	settle()
	query()
	os.Remove(filepath.Join(root, "notes/wallaby.md"))
	if ids(query()) != "quokka" {
		t.Fatal("deleted file still served")
	}
	settle()
	query()
	testws.Write(t, root, "tropo.toml", "exclude = [\"notes/quokka.md\"]\n")
	if ids(query()) != "" {
		t.Fatal("newly excluded file still served")
	}
	settle()
	query()
	os.Remove(filepath.Join(root, "tropo.toml"))
	testws.Write(t, root, "notes/quokka.md", "# Quokka\n\nsecret = hunter2\n")
	if ids(query()) != "" {
		t.Fatal("file that gained a credential still served")
	}
	settle()
	query()
	testws.Write(t, root, "notes/quokka.md", "# Quokka\n\nclean again\n")
	if ids(query()) != "quokka" {
		t.Fatal("file that lost its credential not seen")
	}
	settle()
	query()
	outside := filepath.Join(t.TempDir(), "other.md")
	os.Link(filepath.Join(root, "notes/quokka.md"), outside)
	if ids(query()) != "" {
		t.Fatal("file that gained a second link still served")
	}
	settle()
	query()
	os.Remove(outside)
	if ids(query()) != "quokka" {
		t.Fatal("file that lost its second link not seen")
	}
}

func TestFreshnessGitIgnore(t *testing.T) {
	for name, newReader := range map[string]func(*workspace.Workspace) *produce.Reader{
		"stat": produce.NewReader, "feed": produce.NewServingReader,
	} {
		t.Run(name, func(t *testing.T) { testFreshnessGitIgnore(t, newReader) })
	}
}

func testFreshnessGitIgnore(t *testing.T, newReader func(*workspace.Workspace) *produce.Reader) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // os.UserHomeDir on Windows
	t.Setenv("XDG_CONFIG_HOME", "")
	root := fixture(t)
	os.Remove(filepath.Join(root, ".gitignore"))
	testws.Write(t, root, ".gitignore", ".vivary/private/\n.vivary/runtime/\n")
	testws.Git(t, root, "init", "-q")
	testws.Write(t, root, "notes/deep/quokka.md", "# Quokka\n")
	time.Sleep(80 * time.Millisecond)
	r := newReader(bindWS(t, root))
	defer r.Close()
	q := func() string {
		res, err := r.Query(bg, produce.QueryArgs{Text: "quokka", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return ids(res)
	}
	if cold, warm := q(), q(); cold != "quokka" || warm != "quokka" {
		t.Fatal("warm query lost the file")
	}
	// Each input Git decides from, inside the workspace and out, shows on
	// the very next call; every rule is taken back before the next one.
	steps := []struct {
		name       string
		ignore, un func()
	}{
		{"nested .gitignore", func() { testws.Write(t, root, "notes/.gitignore", "deep/\n") },
			func() { os.Remove(filepath.Join(root, "notes/.gitignore")) }},
		{".git/info/exclude", func() { testws.Write(t, root, ".git/info/exclude", "notes/deep/\n") },
			func() { testws.Write(t, root, ".git/info/exclude", "") }},
		{"the user's default excludes file", func() { testws.Write(t, home, ".config/git/ignore", "quokka.md\n") },
			func() { os.Remove(filepath.Join(home, ".config/git/ignore")) }},
		{"the user's ~/.gitconfig", func() {
			testws.Write(t, home, "elsewhere/ignore", "quokka.md\n")
			testws.Write(t, home, ".gitconfig", "[core]\n\texcludesFile = ~/elsewhere/ignore\n")
		}, func() { os.Remove(filepath.Join(home, ".gitconfig")) }},
	}
	for _, st := range steps {
		time.Sleep(80 * time.Millisecond)
		q() // a snapshot past the racy window, so only the stamps can tell
		st.ignore()
		if q() != "" {
			t.Fatalf("%s: newly ignored file still served", st.name)
		}
		time.Sleep(80 * time.Millisecond)
		q()
		st.un()
		if q() != "quokka" {
			t.Fatalf("%s: file no longer ignored not served", st.name)
		}
	}
}

// The snapshot's own ceilings are tested in the snapshot package.
func TestWorkLimits(t *testing.T) {
	t.Parallel()
	t.Run("200 findings", func(t *testing.T) {
		extra := map[string]string{}
		for i := 0; i < 67; i++ { // three E101 each
			extra[fmt.Sprintf("changes/c%d.md", i)] = "# C\n"
		}
		root := testws.Thin(t, extra)
		if _, err := produce.Check(bg, bindWS(t, root), produce.CheckArgs{}); reason.Of(err) != reason.WorkLimitExceeded {
			t.Fatalf("201 findings: %v", err)
		}
		os.Remove(filepath.Join(root, "changes/c66.md"))
		testws.Write(t, root, "changes/c66.md", "---\nproject: p\nstatus: done\n---\n")
		if res, err := produce.Check(bg, bindWS(t, root), produce.CheckArgs{}); err != nil || len(res.Findings) != 199 {
			t.Fatalf("199 findings: %v", err)
		}
	})
}

// A filter or check path that names an ignored path is refused, whether or
// not anything is there.
func TestIgnoredPathsAreRefused(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	r := produce.NewReader(bindWS(t, root))
	for _, p := range []string{".vivary/runtime/*", ".vivary/runtime/nothing-here.md", "x.vivary-tmp"} {
		if _, err := r.Query(bg, produce.QueryArgs{Text: "x", Limit: 1, Filters: produce.Filters{Path: []string{p}}}); reason.Of(err) != reason.PathRefused {
			t.Errorf("path filter %q: %v", p, err)
		}
	}
	for _, p := range []string{".vivary/runtime/receipts.md", ".vivary/runtime/nothing-here.md"} {
		if _, err := r.Check(bg, produce.CheckArgs{Paths: []string{p}}); reason.Of(err) != reason.PathRefused {
			t.Errorf("check path %q: %v", p, err)
		}
	}
	os.Remove(filepath.Join(root, ".gitignore"))
	testws.Write(t, root, ".gitignore", ".vivary/private/\n.vivary/runtime/\nnotes/\n")
	testws.Git(t, root, "init", "-q")
	g := produce.NewReader(bindWS(t, root))
	if _, err := g.Query(bg, produce.QueryArgs{Text: "x", Limit: 1, Filters: produce.Filters{Path: []string{"notes/*"}}}); reason.Of(err) != reason.PathRefused {
		t.Errorf("git-ignored path filter: %v", err)
	}
	if _, err := g.Query(bg, produce.QueryArgs{Text: "x", Limit: 1, Filters: produce.Filters{Path: []string{"decisions/*"}}}); err != nil {
		t.Errorf("admitted path filter: %v", err)
	}
}
