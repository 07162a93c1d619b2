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
