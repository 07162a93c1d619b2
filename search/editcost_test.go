package search

import (
	"context"
	"fmt"
	"testing"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// After an edit, a search computes the field weights of the documents it
// scores, not of every document: the average lengths move with every
// edit, and a pass over every slot made an edit cost the whole vault. The
// answers are held to a fresh index's by TestUpdatedIndexAnswersAsAFreshOne.
func TestEditWeighsOnlyWhatItScores(t *testing.T) {
	docs := map[string]string{"notes/q1.md": "# Q\n\nquokka\n", "notes/q2.md": "# Q2\n\nquokka numbat\n"}
	for i := range 600 {
		docs[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("# Note %d\n\nwombat %d\n", i, i)
	}
	root := testws.Thin(t, docs)
	ws := testws.Bind(t, root)
	src := snapshot.NewSource(ws, snapshot.Options{Prepare: Prepare})
	defer src.Close()
	ix, ctx := NewIndex(), context.Background()
	read := func(d *graph.Document) (string, error) { return snapshot.Text(ws, d) }
	search := func() int {
		t.Helper()
		snap, err := src.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Update(snap, read); err != nil {
			t.Fatal(err)
		}
		hits, err := ix.Search(ctx, Query{Text: "quokka", K: 5, Read: read})
		if err != nil || len(hits) != 2 {
			t.Fatalf("%d hits, %v", len(hits), err)
		}
		weighed := 0
		for _, w := range ix.weights {
			if w.gen == ix.gen {
				weighed++
			}
		}
		return weighed
	}
	search()
	testws.Write(t, root, "notes/n007.md", "# Note 7\n\nwombat edited at length\n")
	if n := search(); n > 4 || n < 2 {
		t.Errorf("a search after an edit weighed %d of %d documents", n, len(ix.slots))
	}
}

// After edits, a common word's document frequency counts only the live
// documents, looked up by the slots that died since it was last asked
// (the skips of a long list) or counted afresh when many died, and an
// updated index answers as a fresh one.
func TestEditKeepsDocumentFrequencies(t *testing.T) {
	docs := map[string]string{}
	for i := range 300 {
		docs[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("# Note %d\n\nwombat %d\n", i, i)
	}
	root := testws.Thin(t, docs)
	ws := testws.Bind(t, root)
	src := snapshot.NewSource(ws, snapshot.Options{Prepare: Prepare})
	defer src.Close()
	ix, ctx := NewIndex(), context.Background()
	read := func(d *graph.Document) (string, error) { return snapshot.Text(ws, d) }
	for step, edited := range [][]int{nil, {7}, {150}, {7, 299}, {0}, {3, 4, 5, 6, 8, 9, 10, 11, 12, 13}, {150}} {
		for _, i := range edited {
			text := fmt.Sprintf("# Note %d\n\nnumbat %d\n", i, step)
			if step%2 == 0 {
				text = fmt.Sprintf("# Note %d\n\nwombat again %d\n", i, step)
			}
			testws.Write(t, root, fmt.Sprintf("notes/n%03d.md", i), text)
		}
		snap, err := src.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Update(snap, read); err != nil {
			t.Fatal(err)
		}
		fresh := NewIndex()
		if err := fresh.Update(snap, read); err != nil {
			t.Fatal(err)
		}
		for _, term := range []string{"wombat", "numbat", "note", "again"} {
			if got, want := ix.df(ix.post[term]), fresh.df(fresh.post[term]); got != want {
				t.Fatalf("step %d: df(%s) %d, a fresh index says %d", step, term, got, want)
			}
			q := Query{Text: term, K: 5, SnippetChars: 40, Read: read}
			a, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			b, err := fresh.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("step %d, %q: updated %v\nfresh %v", step, term, a, b)
			}
		}
	}
}
