package search_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/search"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// lookCtx counts the looks at its Err, and is cancelled at the cut-th
// (never when cut is 0): a cut that lands at one given look, the same on
// any machine.
type lookCtx struct {
	context.Context
	cancel context.CancelFunc
	cut    int64
	looks  atomic.Int64
}

func (c *lookCtx) Err() error {
	if c.looks.Add(1) == c.cut {
		c.cancel()
	}
	return c.Context.Err()
}

// A search looks at its context at least once per thousand postings or
// candidates, in every loop (a word's postings, the words a question word
// begins, the candidates), so a cancelled call's search ends within
// milliseconds of work at 50,000 notes on a saturated machine; before, the
// last two never looked. A search cut at any of those looks leaves the
// index answering as a fresh one does.
func TestSearchLooksAtItsContext(t *testing.T) {
	const notes = 3000
	docs := map[string]string{}
	for i := range notes {
		docs[fmt.Sprintf("notes/n%04d.md", i)] = fmt.Sprintf("# Note %d\n\nwombat %d\n", i, i%9)
	}
	ws := testws.Bind(t, testws.Thin(t, docs))
	snap, err := snapshot.Take(context.Background(), ws, snapshot.Options{Prepare: search.Prepare})
	if err != nil {
		t.Fatal(err)
	}
	read := func(d *graph.Document) (string, error) { return snapshot.Text(ws, d) }
	ix := search.NewIndex()
	if err := ix.Update(snap, read); err != nil {
		t.Fatal(err)
	}
	const per = (notes + 1023) / 1024
	for _, c := range []struct {
		text string
		// loops is how many loops over every note the search makes.
		loops int
	}{
		{"wombat", 2},      // the word's postings, the candidates
		{"wombatish", 2},   // no such word: the words it begins, the candidates
		{"wombat note", 3}, // two words' postings, the candidates
	} {
		t.Run(c.text, func(t *testing.T) {
			q := search.Query{Text: c.text, K: 5, SnippetChars: 40, Read: read}
			want, err := ix.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			count := &lookCtx{Context: context.Background()}
			if _, err := ix.Search(count, q); err != nil {
				t.Fatal(err)
			}
			looks := count.looks.Load()
			if looks < int64(c.loops*per) {
				t.Errorf("%d looks at the context over %d notes in %d loops, want one per thousand items at least", looks, notes, c.loops)
			}
			for cut := int64(1); cut <= looks; cut++ {
				ctx, cancel := context.WithCancel(context.Background())
				_, err := ix.Search(&lookCtx{Context: ctx, cancel: cancel, cut: cut}, q)
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("cut at look %d: %v, want a cancellation", cut, err)
				}
				got, err := ix.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("after a cut at look %d:\n%+v\nwant\n%+v", cut, got, want)
				}
			}
		})
	}
}
