package search_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
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

// Documents the index reads again (here every one: the read pass did not
// tokenize them) count in the call's progress: a client sees the index
// build go on, done growing up to a total raised by them.
func TestReadingAgainCountsInProgress(t *testing.T) {
	docs := map[string]string{}
	for i := range 300 {
		docs[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("# Note %d\n\nquokka %d wombat\n", i, i%9)
	}
	ws := testws.Bind(t, testws.Thin(t, docs))
	snap, err := snapshot.Take(context.Background(), ws, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := &snapshot.Meter{}
	ctx := snapshot.WithMeter(context.Background(), m)
	var seen []int64
	var mu sync.Mutex
	if err := search.NewIndex().UpdateContext(ctx, snap, func(d *graph.Document) (string, error) {
		mu.Lock()
		done, _ := m.Counts()
		seen = append(seen, done)
		mu.Unlock()
		return snapshot.Text(ws, d)
	}); err != nil {
		t.Fatal(err)
	}
	done, total := m.Counts()
	if n := int64(len(snap.Docs)); done != n || total != n {
		t.Errorf("progress %d of %d after reading %d documents again", done, total, n)
	}
	if len(seen) != len(snap.Docs) || slices.Max(seen) == 0 {
		t.Errorf("%d documents read again (want %d), done at most %d while reading", len(seen), len(snap.Docs), slices.Max(seen))
	}
}

// A call cut while its index adds a batch it read again stops within 128
// documents of it (a batch of a full index's terms took seconds past the
// grace on a saturated machine), and the next update reads again exactly
// the documents left out, and answers as an index built in one go.
func TestCutWhileAddingABatch(t *testing.T) {
	const notes = 1000
	docs := map[string]string{}
	for i := range notes {
		docs[fmt.Sprintf("notes/n%04d.md", i)] = fmt.Sprintf("# Note %d\n\nquokka %d wombat\n", i, i%9)
	}
	ws := testws.Bind(t, testws.Thin(t, docs))
	snap, err := snapshot.Take(context.Background(), ws, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	read := func(d *graph.Document) (string, error) { return snapshot.Text(ws, d) }
	// Looks: the batch's start, then the adding's first (after 128
	// documents), where the cut lands; read never looks.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ix := search.NewIndex()
	if err := ix.UpdateContext(&lookCtx{Context: ctx, cancel: cancel, cut: 2}, snap, read); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cut update: %v", err)
	}
	var again atomic.Int64
	if err := ix.Update(snap, func(d *graph.Document) (string, error) {
		again.Add(1)
		return read(d)
	}); err != nil {
		t.Fatal(err)
	}
	if want := int64(len(snap.Docs) - 128); again.Load() != want {
		t.Errorf("the next update read %d documents again, want %d: the cut one should have added 128", again.Load(), want)
	}
	whole := search.NewIndex()
	if err := whole.Update(snap, read); err != nil {
		t.Fatal(err)
	}
	q := search.Query{Text: "quokka wombat", K: 10, SnippetChars: 40, Read: read}
	got, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	want, err := whole.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after the cut:\n%+v\nbuilt in one go:\n%+v", got, want)
	}
}
