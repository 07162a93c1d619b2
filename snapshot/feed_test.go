package snapshot

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/workspace"
)

// rounds is how many write-then-call rounds a freshness test runs:
// VIVARY_FRESHNESS_ROUNDS, else 150 (40 with -short).
func rounds(t *testing.T) int {
	if n, err := strconv.Atoi(os.Getenv("VIVARY_FRESHNESS_ROUNDS")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 40
	}
	return 150
}

// mutation is one change a user or a tool makes to the tree.
type mutation struct {
	name string
	do   func(t *testing.T, root string, rng *rand.Rand)
}

func note(rng *rand.Rand, words ...string) string {
	return "# N\n\n" + words[rng.Intn(len(words))] + " " + strconv.Itoa(rng.Intn(100)) + "\n"
}

var mutations = []mutation{
	{"rewrite, same size", func(t *testing.T, root string, rng *rand.Rand) {
		os.WriteFile(filepath.Join(root, "notes", "a.md"), []byte(fmt.Sprintf("# A\n\n%02d\n", rng.Intn(100))), 0o644)
	}},
	{"new note", func(t *testing.T, root string, rng *rand.Rand) {
		os.WriteFile(filepath.Join(root, "notes", fmt.Sprintf("n%d.md", rng.Intn(6))), []byte(note(rng, "quokka", "wombat")), 0o644)
	}},
	{"delete", func(t *testing.T, root string, rng *rand.Rand) {
		os.Remove(filepath.Join(root, "notes", fmt.Sprintf("n%d.md", rng.Intn(6))))
	}},
	{"rename", func(t *testing.T, root string, rng *rand.Rand) {
		os.Rename(filepath.Join(root, "notes", fmt.Sprintf("n%d.md", rng.Intn(6))), filepath.Join(root, "notes", fmt.Sprintf("n%d.md", rng.Intn(6))))
	}},
	{"new folder", func(t *testing.T, root string, rng *rand.Rand) {
		d := filepath.Join(root, "notes", fmt.Sprintf("d%d", rng.Intn(3)))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "x.md"), []byte(note(rng, "deep")), 0o644)
	}},
	{"folder moved", func(t *testing.T, root string, rng *rand.Rand) {
		os.Rename(filepath.Join(root, "notes", fmt.Sprintf("d%d", rng.Intn(3))), filepath.Join(root, "notes", fmt.Sprintf("d%d", rng.Intn(3))))
	}},
	{"folder swapped for a link", func(t *testing.T, root string, rng *rand.Rand) {
		d := filepath.Join(root, "notes", fmt.Sprintf("d%d", rng.Intn(3)))
		if info, err := os.Lstat(d); err == nil && info.Mode()&os.ModeSymlink != 0 {
			os.Remove(d)
			return
		}
		os.RemoveAll(d)
		os.Symlink(filepath.Join(filepath.Dir(root), "outside"), d)
	}},
	{"note swapped for a link", func(t *testing.T, root string, rng *rand.Rand) {
		p := filepath.Join(root, "notes", fmt.Sprintf("n%d.md", rng.Intn(6)))
		os.Remove(p)
		os.Symlink(filepath.Join(filepath.Dir(root), "outside", "s.md"), p)
	}},
	{"hard link from outside", func(t *testing.T, root string, rng *rand.Rand) {
		out := filepath.Join(filepath.Dir(root), "outside", "hard.md")
		if os.Remove(out) != nil {
			os.Link(filepath.Join(root, "notes", fmt.Sprintf("n%d.md", rng.Intn(6))), out)
		}
	}},
	{"note edited in place", func(t *testing.T, root string, rng *rand.Rand) {
		p := filepath.Join(root, "notes", fmt.Sprintf("n%d.md", rng.Intn(6)))
		if f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0); err == nil {
			f.WriteString(note(rng, "quokka", "bilby", "password = hunter2hunter2"))
			f.Close()
		}
	}},
	{"note's mode changed", func(t *testing.T, root string, rng *rand.Rand) {
		os.Chmod(filepath.Join(root, "notes", fmt.Sprintf("n%d.md", rng.Intn(6))), []os.FileMode{0, 0o600, 0o644}[rng.Intn(3)])
	}},
	{"credential added", func(t *testing.T, root string, rng *rand.Rand) {
		os.WriteFile(filepath.Join(root, "notes", fmt.Sprintf("n%d.md", rng.Intn(6))), []byte("# S\n\npassword = hunter2hunter2\n"), 0o644)
	}},
	{"tropo.toml", func(t *testing.T, root string, rng *rand.Rand) {
		p := filepath.Join(root, policy.OverlayPath)
		if rng.Intn(2) == 0 {
			os.Remove(p)
			return
		}
		os.WriteFile(p, []byte(fmt.Sprintf("exclude = [\"notes/n%d.md\", \"d%d\"]\n", rng.Intn(6), rng.Intn(3))), 0o644)
	}},
	{"workspace.toml", func(t *testing.T, root string, rng *rand.Rand) {
		p := filepath.Join(root, policy.ThinConfigPath)
		b, _ := os.ReadFile(p)
		s := string(b)
		if strings.Contains(s, `"notes/n1.md", `) {
			s = strings.Replace(s, `"notes/n1.md", `, "", 1)
		} else {
			s = strings.Replace(s, "exclude = [", `exclude = ["notes/n1.md", `, 1)
		}
		os.WriteFile(p, []byte(s), 0o644)
	}},
}

// gitMutations change what Git ignores.
var gitMutations = []mutation{
	{".gitignore", func(t *testing.T, root string, rng *rand.Rand) {
		rules := []string{"", "n1.md\n", "d0/\n", "*.md\n!n2.md\n", "d1/\n!d1/x.md\n"}
		os.WriteFile(filepath.Join(root, "notes", ".gitignore"), []byte(rules[rng.Intn(len(rules))]), 0o644)
	}},
	{".git/info/exclude", func(t *testing.T, root string, rng *rand.Rand) {
		rules := []string{"", "notes/n3.md\n", "notes/d2/\n"}
		os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte(rules[rng.Intn(len(rules))]), 0o644)
	}},
}

// A change that completed before a call started is in that call's
// answer: after every change, the kept Source serves exactly what a fresh
// snapshot of the same tree says, down to the fingerprint over every
// document, omission and admitted path. Thousands of rounds under
// ./test.sh --stress (VIVARY_FRESHNESS_ROUNDS).
func TestWriteThenCallAgreesWithAFreshSnapshot(t *testing.T) {
	for _, git := range []bool{false, true} {
		t.Run(map[bool]string{false: "outside Git", true: "in Git"}[git], func(t *testing.T) {
			root, ws, muts := mutableTree(t, git)
			src := NewSource(ws, Options{Watch: true})
			defer src.Close()
			rng := rand.New(rand.NewSource(7))
			viaFeed, readmits := 0, 0
			readmitted = func() { readmits++ }
			defer func() { readmitted = nil }()
			for i := 0; i < rounds(t); i++ {
				m := muts[rng.Intn(len(muts))]
				m.do(t, root, rng)
				before := src.feed
				agrees(t, src, i, m.name)
				if before != nil && before == src.feed && src.feed.usable() {
					viaFeed++
				}
				// A change to a policy input no walk watches bars reading
				// documents alone until a call past its racy window; a
				// fast machine makes the next such change sooner than
				// that, and would never read alone. A call once the
				// window has passed (what a user's next call is) keeps
				// that path in the rounds at any speed.
				if s := src.snap; s != nil && racy(s.started, s.outside, nil, s.unwatched) {
					time.Sleep(racyWindow + 30*time.Millisecond)
					agrees(t, src, i, m.name+", then nothing past the racy window")
				}
			}
			if feedAvailable(root) && viaFeed < rounds(t)/2 {
				t.Fatalf("only %d of %d rounds were decided by the change feed", viaFeed, rounds(t))
			}
			if feedAvailable(root) && readmits == 0 {
				t.Fatalf("no round of %d read changed documents alone", rounds(t))
			}
			t.Logf("%d of %d rounds read changed documents alone", readmits, rounds(t))
		})
	}
}

// mutableTree is the workspace the mutations change, with a folder beside
// it for outside content, in a Git worktree or not, and the mutations that
// apply to it.
func mutableTree(t *testing.T, git bool) (string, *workspace.Workspace, []mutation) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	root := testws.Thin(t, map[string]string{"notes/a.md": "# A\n\n00\n", "notes/n0.md": "# N\n\nquokka\n"})
	testws.Write(t, filepath.Dir(root), "outside/s.md", "# S\n\nZEBRAMARKER\n")
	if !git {
		return root, testws.Bind(t, root), mutations
	}
	os.Remove(filepath.Join(root, ".gitignore"))
	testws.Write(t, root, ".gitignore", ".vivary/private/\n.vivary/runtime/\n")
	testws.Git(t, root, "init", "-q")
	return root, testws.Bind(t, root), append(append([]mutation(nil), mutations...), gitMutations...)
}

// agrees makes one call through src, just after a change, and fails the
// test unless it answers exactly as a fresh snapshot of the same tree.
func agrees(t *testing.T, src *Source, round int, change string) {
	t.Helper()
	got, err := src.Snapshot(bg)
	want, werr := Take(bg, src.Workspace(), Options{})
	if (err == nil) != (werr == nil) {
		t.Fatalf("round %d (%s): kept source says %v, a fresh snapshot %v", round, change, err, werr)
	}
	if err != nil {
		return
	}
	if got.Fingerprint != want.Fingerprint {
		t.Fatalf("round %d (%s): the kept source served a stale answer:\n got %v %+v\nwant %v %+v", round, change, paths(got), got.Omissions, paths(want), want.Omissions)
	}
	for _, d := range got.Docs {
		if holds(d, "# S\n\nZEBRAMARKER\n") {
			t.Fatalf("round %d (%s): served a note from outside the workspace", round, change)
		}
	}
}

func paths(s *Snapshot) []string {
	var out []string
	for _, d := range s.Docs {
		out = append(out, d.Path)
	}
	return out
}

// With the change feed, a call on an unchanged tree stats only the fixed
// policy inputs, however many documents there are; a change is read again
// alone, and published in Changes.
func TestFeedFreshnessIsConstant(t *testing.T) {
	extra := map[string]string{}
	for i := 0; i < 300; i++ {
		extra[fmt.Sprintf("notes/%d/%d.md", i%7, i)] = fmt.Sprintf("# N%d\n\nquokka\n", i)
	}
	root := testws.Thin(t, extra)
	time.Sleep(80 * time.Millisecond) // past the racy window, so the notes can be kept
	if !feedAvailable(root) {
		t.Skip("no kernel change feed here")
	}
	ws := testws.Bind(t, root)
	var read atomic.Int64
	src := NewSource(ws, Options{Watch: true, Prepare: func(d *graph.Document, _ string) any { read.Add(1); return nil }})
	defer src.Close()
	first, err := src.Snapshot(bg)
	if err != nil {
		t.Fatal(err)
	}
	var stats []int
	statCount = func(n int) { stats = append(stats, n) }
	defer func() { statCount = nil }()
	for i := 0; i < 5; i++ {
		if s, err := src.Snapshot(bg); err != nil || s != first {
			t.Fatalf("an unchanged tree was not served from the kept snapshot: %v", err)
		}
	}
	for _, n := range stats {
		if n > len(policy.Inputs)+16 {
			t.Fatalf("a call on an unchanged tree stat'd %d inputs", n)
		}
	}
	// A rewrite of one note is read again alone.
	read.Store(0)
	testws.Write(t, root, "notes/3/3.md", "# N3\n\nwombat\n")
	next, err := src.Snapshot(bg)
	if err != nil {
		t.Fatal(err)
	}
	// Every other document is kept as it was (the same one, which is how
	// the search index knows what to index again); the rewritten one is new.
	kept := map[*graph.Document]bool{}
	for _, d := range first.Docs {
		kept[d] = true
	}
	var renewed []string
	for _, d := range next.Docs {
		if !kept[d] {
			renewed = append(renewed, d.Path)
		}
	}
	if len(next.Docs) != len(first.Docs) || fmt.Sprint(renewed) != "[notes/3/3.md]" {
		t.Fatalf("%d of %d documents, renewed %v", len(next.Docs), len(first.Docs), renewed)
	}
	if n := read.Load(); n > 1 {
		t.Fatalf("%d documents were read again for one change", n)
	}
}

func feedAvailable(root string) bool {
	f := newFeed(root)
	if f != nil {
		f.close()
	}
	return f != nil
}
