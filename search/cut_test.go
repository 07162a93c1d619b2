package search_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/search"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// An index build cut short keeps what it tokenized: the next update reads
// and tokenizes only the documents the cut one did not, and then answers
// exactly as an index built in one go.
func TestCutUpdateKeepsItsWork(t *testing.T) {
	docs := map[string]string{}
	for i := range 120 {
		docs[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("# Note %d\n\nquokka %d wombat\n", i, i%9)
	}
	ws := testws.Bind(t, testws.Thin(t, docs))
	// Not prepared by the read pass, so the index reads every document.
	snap, err := snapshot.Take(context.Background(), ws, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	first := map[string]bool{}
	ix := search.NewIndex()
	err = ix.UpdateContext(ctx, snap, func(d *graph.Document) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(first) == 40 {
			cancel()
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		first[d.Path] = true
		return snapshot.Text(ws, d)
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the cut update: %v", err)
	}
	var again []string
	if err := ix.Update(snap, func(d *graph.Document) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if first[d.Path] {
			t.Errorf("%s was read again", d.Path)
		}
		again = append(again, d.Path)
		return snapshot.Text(ws, d)
	}); err != nil {
		t.Fatal(err)
	}
	if len(again)+len(first) != len(snap.Docs) {
		t.Errorf("%d read by the cut update, %d by the next, of %d", len(first), len(again), len(snap.Docs))
	}
	fresh := search.NewIndex()
	if err := fresh.Update(snap, read(ws)); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"quokka", "wombat 3", "note 7"} {
		if got, want := render(t, ix, ws, q), render(t, fresh, ws, q); got != want {
			t.Errorf("%q: after a cut\n%s\nin one go\n%s", q, got, want)
		}
	}
}
