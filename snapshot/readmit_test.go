package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/reason"
)

// follow counts, from now until the test ends, the folders listed and the
// documents read (served ones: through Prepare) by calls of one Source, and
// the calls the per-document path served, and the snapshots it assembled
// visiting every document.
type follow struct {
	src                            *Source
	lists, reads, readmits, wholes atomic.Int64
}

func (f *follow) reset() { f.lists.Store(0); f.reads.Store(0); f.readmits.Store(0); f.wholes.Store(0) }

// readmitSource builds a workspace of a few dozen notes (in Git when git),
// plus extra files, and a watching Source over it that has taken its first
// snapshot.
func readmitSource(t *testing.T, git bool, extra map[string]string) (string, *follow) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		files[fmt.Sprintf("notes/%d/%d.md", i%4, i)] = fmt.Sprintf("# N%d\n\nquokka %d, see [[%d]]\n", i, i, (i+1)%40)
	}
	for p, c := range extra {
		files[p] = c
	}
	root := testws.Thin(t, files)
	testws.Write(t, filepath.Dir(root), "outside/.keep", "")
	if git {
		testws.Git(t, root, "init", "-q")
		testws.Write(t, root, "notes/.gitignore", "*.tmp\n")
	}
	if !feedAvailable(root) {
		t.Skip("no kernel change feed here")
	}
	time.Sleep(80 * time.Millisecond) // past the racy window
	f := &follow{}
	f.src = NewSource(testws.Bind(t, root), Options{Watch: true, Prepare: func(*graph.Document, string) any { f.reads.Add(1); return nil }})
	beforeList = func(string) { f.lists.Add(1) }
	readmitted = func() { f.readmits.Add(1) }
	assembling = func() { f.wholes.Add(1) }
	t.Cleanup(func() {
		beforeList, readmitted, readmitStage, afterReads, assembling = nil, nil, nil, nil, nil
		f.src.Close()
	})
	if _, err := f.src.Snapshot(bg); err != nil {
		t.Fatal(err)
	}
	f.reset()
	return root, f
}

// call asks the Source, then a fresh Take, and fails unless both say the
// same: the same refusal, or the same fingerprint, documents and omissions.
func (f *follow) call(t *testing.T) *Snapshot {
	t.Helper()
	got, err := f.src.Snapshot(bg)
	lists, reads, readmits, wholes := f.lists.Load(), f.reads.Load(), f.readmits.Load(), f.wholes.Load()
	want, werr := Take(bg, f.src.Workspace(), Options{})
	f.lists.Store(lists)
	f.reads.Store(reads)
	f.readmits.Store(readmits)
	f.wholes.Store(wholes)
	if err != nil || werr != nil {
		if reason.Of(err) != reason.Of(werr) || err == nil || werr == nil {
			t.Fatalf("the Source says %v, a fresh snapshot %v", err, werr)
		}
		return nil
	}
	if got.Fingerprint != want.Fingerprint || describe(got) != describe(want) {
		t.Fatalf("the Source and a fresh snapshot disagree:\n got %s\nwant %s", describe(got), describe(want))
	}
	return got
}

func describe(s *Snapshot) string {
	var b strings.Builder
	for _, d := range s.Docs {
		fmt.Fprintf(&b, "%s=%.8s ", d.Path, d.Digest)
	}
	fmt.Fprintf(&b, "omissions %+v complete %v unreadable %v", s.Omissions, s.Complete, s.Unreadable)
	return b.String()
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	// In place: the same inode, so the feed sees content events only.
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A content edit to one note reads that note alone: no folder is listed,
// no other note read, and every other document is the very one kept; the
// answer is what a fresh snapshot says.
func TestContentEditReadsOnlyThatNote(t *testing.T) {
	for _, git := range []bool{false, true} {
		t.Run(map[bool]string{false: "outside Git", true: "in Git"}[git], func(t *testing.T) {
			root, f := readmitSource(t, git, nil)
			first, err := f.src.Snapshot(bg)
			if err != nil {
				t.Fatal(err)
			}
			write(t, root, "notes/1/5.md", "---\nid: five\n---\n# Five\n\nwombat, see [[7]]\n")
			next := f.call(t)
			if f.readmits.Load() != 1 || f.lists.Load() != 0 || f.reads.Load() != 1 {
				t.Fatalf("readmitted %d, listed %d folders, read %d notes", f.readmits.Load(), f.lists.Load(), f.reads.Load())
			}
			kept := map[*graph.Document]bool{}
			for _, d := range first.Docs {
				kept[d] = true
			}
			for _, d := range next.Docs {
				if kept[d] == (d.Path == "notes/1/5.md") {
					t.Fatalf("%s: kept %v", d.Path, kept[d])
				}
			}
			if fmt.Sprint(next.Graph.Edges()) != fmt.Sprint(graph.Build(next.Docs).Edges()) {
				t.Fatal("the graph was not built from the new text")
			}
			// Two at once, one of them twice.
			f.reset()
			write(t, root, "notes/2/6.md", "# Six\n\nbilby\n")
			write(t, root, "notes/3/7.md", "# Seven\n\nbilby\n")
			write(t, root, "notes/3/7.md", "# Seven\n\nbilby again\n")
			f.call(t)
			if f.readmits.Load() != 1 || f.lists.Load() != 0 || f.reads.Load() != 2 {
				t.Fatalf("readmitted %d, listed %d folders, read %d notes", f.readmits.Load(), f.lists.Load(), f.reads.Load())
			}
		})
	}
}

// An edit that makes a note hold a credential drops it on the
// per-document path, as a fresh snapshot does; an edit back serves it again.
func TestReadmitScreensEveryEdit(t *testing.T) {
	root, f := readmitSource(t, false, nil)
	write(t, root, "notes/0/4.md", "# Four\n\npassword = hunter2hunter2\n")
	s := f.call(t)
	if served(s)["notes/0/4.md"] || omitted(s, "document", "sensitive_content") != 1 || f.readmits.Load() != 1 {
		t.Fatalf("readmitted %d: %s", f.readmits.Load(), describe(s))
	}
	write(t, root, "notes/0/4.md", "# Four\n\nwritten at "+root+"/notes\n")
	s = f.call(t)
	if served(s)["notes/0/4.md"] || omitted(s, "document", "sensitive_content") != 1 || f.readmits.Load() != 2 {
		t.Fatalf("readmitted %d: %s", f.readmits.Load(), describe(s))
	}
	write(t, root, "notes/0/4.md", "# Four\n\nclean again\n")
	s = f.call(t)
	if !served(s)["notes/0/4.md"] || omitted(s, "document", "sensitive_content") != 0 || f.readmits.Load() != 3 {
		t.Fatalf("readmitted %d: %s", f.readmits.Load(), describe(s))
	}
}

// An edit that leaves a note served builds the snapshot from the last
// one's with just that note replaced, visiting no other document, and says
// what a fresh snapshot says: its stamps, its entry in the fingerprint, and
// the edges it omits, which make the snapshot incomplete and complete
// again. An edit that drops a note (or serves it again) builds it whole.
func TestEditVisitsOnlyTheEditedNote(t *testing.T) {
	change := func(refs string) string {
		return "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: [" + refs + "]\n---\n# Change\n"
	}
	root, f := readmitSource(t, false, map[string]string{"changes/a.md": change(`"m"`), "changes/b.md": change(`"m"`)})
	for i, c := range []struct {
		rel, text string
		whole     bool
		edges     int
	}{
		{"notes/1/5.md", "# Five\n\nwombat\n", false, 0},
		{"changes/a.md", change(`"/etc/passwd", "m"`), false, 1},
		{"changes/b.md", change(`"/root", "/etc"`), false, 3},
		{"changes/a.md", change(`"m"`), false, 2},
		{"changes/b.md", change(""), false, 0},
		{"notes/2/6.md", "# Six\n\npassword = hunter2hunter2\n", true, 0},
		{"notes/2/6.md", "# Six\n\nclean\n", true, 0},
		{"notes/3/39.md", "# Last\n\nedited\n", false, 0},
		{"notes/0/0.md", "# First\n\nedited\n", false, 0},
	} {
		f.reset()
		write(t, root, c.rel, c.text)
		s := f.call(t)
		if f.readmits.Load() != 1 || f.reads.Load() > 1 || (f.wholes.Load() > 0) != c.whole {
			t.Fatalf("edit %d: readmitted %d, read %d, assembled whole %d", i, f.readmits.Load(), f.reads.Load(), f.wholes.Load())
		}
		if omitted(s, "edge", "edge_limit_or_unsafe") != c.edges || s.Complete != (c.edges == 0) {
			t.Fatalf("edit %d: %s", i, describe(s))
		}
		if s.Fresh(f.src.Workspace()) {
			t.Fatalf("edit %d: a stamp written since the snapshot began proves the note unchanged", i)
		}
	}
}

// Everything but a content edit to documents already read, still the same
// single-link file within the limit, walks and admits the whole tree again,
// and the answer is what a fresh snapshot says.
func TestReadmitFallsBackToTheFullPath(t *testing.T) {
	const limit = 4096
	big := "# Big\n\n" + strings.Repeat("x", limit) + "\n"
	once := func(do func()) func() {
		done := false
		return func() {
			if !done {
				done = true
				do()
			}
		}
	}
	cases := []struct {
		name  string
		git   bool
		extra map[string]string
		// change runs after the first snapshot; stage, when set, on the
		// per-document path (see readmitStage and afterReads).
		change func(t *testing.T, root string)
		stage  string
		check  func(t *testing.T, s *Snapshot)
	}{
		{name: "a note created", change: func(t *testing.T, root string) {
			testws.Write(t, root, "notes/0/new.md", "# New\n")
		}},
		{name: "a note deleted", change: func(t *testing.T, root string) {
			os.Remove(filepath.Join(root, "notes/0/4.md"))
		}},
		{name: "a note renamed", change: func(t *testing.T, root string) {
			os.Rename(filepath.Join(root, "notes/0/4.md"), filepath.Join(root, "notes/0/four.md"))
		}},
		{name: "a note edited and a folder created", change: func(t *testing.T, root string) {
			write(t, root, "notes/0/4.md", "# Four\n\nedited\n")
			os.Mkdir(filepath.Join(root, "notes/new"), 0o755)
		}},
		{name: "a .gitignore edited in place", git: true, change: func(t *testing.T, root string) {
			write(t, root, "notes/.gitignore", "*.tmp\n1/\n")
		}, check: func(t *testing.T, s *Snapshot) {
			if served(s)["notes/1/5.md"] {
				t.Fatal("an ignored note was served")
			}
		}},
		{name: ".git/info/exclude edited in place", git: true, change: func(t *testing.T, root string) {
			appendTo(t, filepath.Join(root, ".git/info/exclude"), "notes/2/\n")
		}, check: func(t *testing.T, s *Snapshot) {
			if served(s)["notes/2/6.md"] {
				t.Fatal("an excluded note was served")
			}
		}},
		{name: "workspace.toml edited in place", change: func(t *testing.T, root string) {
			p := filepath.Join(root, ".vivary/workspace.toml")
			b, _ := os.ReadFile(p)
			write(t, root, ".vivary/workspace.toml", strings.Replace(string(b), "exclude = [", `exclude = ["notes/3", `, 1))
		}, check: func(t *testing.T, s *Snapshot) {
			if served(s)["notes/3/7.md"] {
				t.Fatal("an excluded note was served")
			}
		}},
		{name: "tropo.toml edited in place", extra: map[string]string{"tropo.toml": "exclude = []\n"}, change: func(t *testing.T, root string) {
			write(t, root, "tropo.toml", "exclude = [\"notes/3\"]\n")
		}},
		{name: "a file that is not a document edited", extra: map[string]string{"notes/data.txt": "1\n"}, change: func(t *testing.T, root string) {
			write(t, root, "notes/data.txt", "2\n")
		}},
		{name: "a note left out as too large edited shorter", extra: map[string]string{"notes/big.md": big}, change: func(t *testing.T, root string) {
			write(t, root, "notes/big.md", "# Big\n\nsmall now\n")
		}, check: func(t *testing.T, s *Snapshot) {
			if !served(s)["notes/big.md"] {
				t.Fatal("the shortened note was not served")
			}
		}},
		{name: "a note grown past the per-file limit", change: func(t *testing.T, root string) {
			write(t, root, "notes/0/4.md", big)
		}, check: func(t *testing.T, s *Snapshot) {
			if served(s)["notes/0/4.md"] || omitted(s, "document", "too_large") != 1 {
				t.Fatal("a note over the limit was served")
			}
		}},
		{name: "a hard link added from outside the workspace", change: func(t *testing.T, root string) {
			if err := os.Link(filepath.Join(root, "notes/0/4.md"), filepath.Join(filepath.Dir(root), "outside/4.md")); err != nil {
				t.Fatal(err)
			}
		}, check: func(t *testing.T, s *Snapshot) {
			if served(s)["notes/0/4.md"] || omitted(s, "document", "hard_link_or_nonregular") != 1 {
				t.Fatal("a hard-linked note was served")
			}
		}},
		{name: "a note edited, then replaced by another file before its stat", stage: "stat", change: func(t *testing.T, root string) {
			write(t, root, "notes/0/4.md", "# Four\n\nedited\n")
		}},
		{name: "a note edited, then renamed away before its read", stage: "read", change: func(t *testing.T, root string) {
			write(t, root, "notes/0/4.md", "# Four\n\nedited\n")
		}},
		{name: "a note edited, then edited again before its read", stage: "reedit", change: func(t *testing.T, root string) {
			write(t, root, "notes/0/4.md", "# Four\n\nedited\n")
		}},
		{name: "a note edited, then deleted after its read", stage: "delete", change: func(t *testing.T, root string) {
			write(t, root, "notes/0/4.md", "# Four\n\nedited\n")
		}},
		{name: "a note edited, then renamed away after its read", stage: "after", change: func(t *testing.T, root string) {
			write(t, root, "notes/0/4.md", "# Four\n\nedited\n")
		}},
		{name: "a note edited, and ignored while it was read", git: true, stage: "ignore", change: func(t *testing.T, root string) {
			write(t, root, "notes/0/4.md", "# Four\n\nedited\n")
		}, check: func(t *testing.T, s *Snapshot) {
			if served(s)["notes/0/4.md"] {
				t.Fatal("a note ignored while it was read was served")
			}
		}},
		{name: "a note edited, and workspace.toml edited while it was read", stage: "exclude", change: func(t *testing.T, root string) {
			write(t, root, "notes/0/4.md", "# Four\n\nedited\n")
		}, check: func(t *testing.T, s *Snapshot) {
			if served(s)["notes/0/4.md"] {
				t.Fatal("a note excluded while it was read was served")
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lower(t, ceiling{entries: 1 << 30, files: 1 << 30, file: limit, bytes: 1 << 40})
			root, f := readmitSource(t, c.git, c.extra)
			note := filepath.Join(root, "notes/0/4.md")
			switch c.stage {
			case "stat":
				readmitStage = func(stage string) {
					if stage == "stat" {
						tmp := filepath.Join(root, "..", "outside", "swap.md")
						os.WriteFile(tmp, []byte("# Swapped\n\npassword = hunter2hunter2\n"), 0o644)
						os.Rename(tmp, note)
					}
				}
			case "read":
				readmitStage = func(stage string) {
					if stage == "read" {
						os.Rename(note, filepath.Join(root, "notes/0/moved.md"))
					}
				}
			case "reedit":
				readmitStage = func(stage string) {
					if stage == "read" {
						write(t, root, "notes/0/4.md", "# Four\n\nedited once more\n")
					}
				}
			case "delete":
				afterReads = once(func() { os.Remove(note) })
			case "after":
				afterReads = once(func() { os.Rename(note, filepath.Join(root, "notes/0/moved.md")) })
			case "ignore":
				afterReads = once(func() { appendTo(t, filepath.Join(root, "notes/.gitignore"), "0/4.md\n") })
			case "exclude":
				afterReads = once(func() {
					p := filepath.Join(root, ".vivary/workspace.toml")
					b, _ := os.ReadFile(p)
					os.WriteFile(p, []byte(strings.Replace(string(b), "exclude = [", `exclude = ["notes/0/4.md", `, 1)), 0o644)
				})
			}
			c.change(t, root)
			s := f.call(t)
			if f.readmits.Load() != 0 || f.lists.Load() == 0 {
				t.Fatalf("readmitted %d, listed %d folders", f.readmits.Load(), f.lists.Load())
			}
			if s != nil && c.check != nil {
				c.check(t, s)
			}
			// And the next call, with nothing more changed, still agrees.
			f.call(t)
		})
	}
}

// chmod 000 changes a note's attributes only. Where the mode keeps a reader
// out the read fails and the whole tree is taken again, the note counted
// unavailable; a root process reads on, on the per-document path.
func TestReadmitUnreadableNote(t *testing.T) {
	root, f := readmitSource(t, false, nil)
	note := filepath.Join(root, "notes/0/4.md")
	if err := os.Chmod(note, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(note, 0o644)
	s := f.call(t)
	if os.Geteuid() != 0 {
		if s == nil || f.readmits.Load() != 0 || served(s)["notes/0/4.md"] || omitted(s, "document", "unavailable") != 1 {
			t.Fatalf("readmitted %d", f.readmits.Load())
		}
	}
	os.Chmod(note, 0o644)
	if s = f.call(t); !served(s)["notes/0/4.md"] {
		t.Fatal("the readable note is not served again")
	}
}
