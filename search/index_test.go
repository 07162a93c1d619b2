package search_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/search"
	"github.com/vivary-dev/vivary-go/snapshot"
	"github.com/vivary-dev/vivary-go/workspace"
)

func read(ws *workspace.Workspace) search.Read {
	return func(d *graph.Document) (string, error) { return snapshot.Text(ws, d) }
}

// render is the ranked paths, scores, reasons and snippets of a search.
func render(t *testing.T, ix *search.Index, ws *workspace.Workspace, q string) string {
	t.Helper()
	hits, err := ix.Search(context.Background(), search.Query{Text: q, K: 10, SnippetChars: 60, Read: read(ws)})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s %d %v %q\n", h.Doc.Path, h.Score, h.Reasons, h.Snippet)
	}
	return b.String()
}

// An index moved along a source's snapshots, one changed document at a
// time, answers exactly as one built from the last snapshot alone: with
// the postings of removed documents still in its lists, and after they
// were compacted away.
func TestUpdatedIndexAnswersAsAFreshOne(t *testing.T) {
	t.Run("dead postings kept", testUpdatedIndex)
	t.Run("compacted", func(t *testing.T) {
		defer search.CompactEarly()()
		testUpdatedIndex(t)
	})
}

func testUpdatedIndex(t *testing.T) {
	docs := map[string]string{}
	for i := range 40 {
		docs[fmt.Sprintf("notes/n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nquokka %s wombat\n", i, strings.Repeat("numbat ", i%7))
	}
	root := testws.Thin(t, docs)
	ws := testws.Bind(t, root)
	src := snapshot.NewSource(ws, snapshot.Options{Prepare: search.Prepare})
	defer src.Close()
	ix := search.NewIndex()
	ctx := context.Background()
	steps := []func(){
		func() {},
		func() { testws.Write(t, root, "notes/n03.md", "# Note three\n\nplatypus quokka quokka\n") },
		func() { os.Remove(filepath.Join(root, "notes", "n04.md")) },
		func() {
			testws.Write(t, root, "notes/sub/n04.md", "# Moved\n\nwombat numbat platypus platypuses platypodes\n")
		},
		func() { testws.Write(t, root, "notes/sub/n04.md", "# Moved\n\nwombat numbat\n") },
		// Two query words written as one, then no more: a joined term
		// whose only postings are dead is not looked up.
		func() { testws.Write(t, root, "notes/n05.md", "# Five\n\nplatypusquokka numbat\n") },
		func() { testws.Write(t, root, "notes/n05.md", "# Five\n\nnumbat\n") },
		func() {
			for i := 10; i < 30; i++ {
				testws.Write(t, root, fmt.Sprintf("notes/n%02d.md", i), fmt.Sprintf("# Rewritten %d\n\nbilby %d\n", i, i))
			}
		},
	}
	for i, step := range steps {
		step()
		snap, err := src.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Update(snap, read(ws)); err != nil {
			t.Fatal(err)
		}
		fresh := search.NewIndex()
		if err := fresh.Update(snap, read(ws)); err != nil {
			t.Fatal(err)
		}
		// "plat" and "numb" are matched as prefixes too: the words that
		// continue them come and go with the notes.
		for _, q := range []string{"quokka", "numbat wombat", "platypus", "platypus quokka", "bilby 12", "note", "plat", "numb", "platypo"} {
			if got, want := render(t, ix, ws, q), render(t, fresh, ws, q); got != want {
				t.Fatalf("step %d, %q: updated index\n%s\nfresh index\n%s", i, q, got, want)
			}
		}
	}
}
