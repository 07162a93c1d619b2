package produce_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
)

// Fewer notes than a batch adds between looks at the context (see
// search.addEvery), so a cut keeps every note it read.
const refocusNotes = 120

func refocusVault(t *testing.T) string {
	t.Helper()
	words := []string{"gate", "frame", "budget", "cache", "timeout"}
	notes := map[string]string{}
	for i := range refocusNotes {
		notes[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("# Note %d %s\n\nwombat %d quokka %s dingo %s\n",
			i, words[i%3], i%7, words[i%5], words[(i/5)%5])
	}
	root := testws.Thin(t, notes)
	time.Sleep(80 * time.Millisecond) // past the racy window, so what was read can be kept
	return root
}

// reads counts the notes read again for an answer, per path; cutAt, when
// set, cancels cut at that read.
type reads struct {
	mu    sync.Mutex
	n     map[string]int
	total int
	cutAt int
	cut   context.CancelFunc
}

func countReads(t *testing.T) *reads {
	rd := &reads{n: map[string]int{}}
	produce.SetBeforeServe(func(rel string) {
		rd.mu.Lock()
		defer rd.mu.Unlock()
		rd.n[rel]++
		rd.total++
		if rd.cut != nil && rd.total == rd.cutAt {
			rd.cut()
		}
	})
	t.Cleanup(func() { produce.SetBeforeServe(nil) })
	return rd
}

// reset starts a new count; with cutAt > 0 the returned context is
// cancelled at the cutAt-th read.
func (rd *reads) reset(cutAt int) context.Context {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	rd.n, rd.total, rd.cutAt, rd.cut = map[string]int{}, 0, cutAt, nil
	if cutAt == 0 {
		return bg
	}
	ctx, cancel := context.WithCancel(bg)
	rd.cut = cancel
	return ctx
}

func (rd *reads) counts() map[string]int {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	out := map[string]int{}
	for p, n := range rd.n {
		out[p] = n
	}
	return out
}

// searched is the notes a search for q reads on r when its index is
// ready (q asked again): the best few, for proximity and snippets.
func searched(t *testing.T, rd *reads, r *produce.Reader, q string) map[string]int {
	t.Helper()
	rd.reset(0)
	if _, err := r.Query(bg, query(q)); err != nil {
		t.Fatal(err)
	}
	return rd.counts()
}

// atMost fails when a note was read more often than once, plus what
// before counted already and what the search itself reads (search).
func atMost(t *testing.T, what string, got, search, before map[string]int) {
	t.Helper()
	for p, n := range got {
		if n+before[p] > 1+search[p] {
			t.Errorf("%s: %s read %d times", what, p, n+before[p])
		}
	}
}

// onlySearched fails when a call read a note its search does not read:
// the notes were read for its index.
func onlySearched(t *testing.T, what string, got, search map[string]int) {
	t.Helper()
	if !reflect.DeepEqual(got, search) {
		t.Errorf("%s read %d notes (%v), its search %d", what, len(got), got, len(search))
	}
}

func query(q string) produce.QueryArgs {
	return produce.QueryArgs{Text: q, Limit: 5, SnippetChars: 80}
}

// fresh is the answer of a one-shot reader, as `vivary query` gives it.
func fresh(t *testing.T, root, q string) *produce.QueryResult {
	t.Helper()
	r := produce.NewReader(bindWS(t, root))
	res, err := r.Query(bg, query(q))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func same(t *testing.T, what string, got, want *produce.QueryResult) {
	t.Helper()
	if len(want.Results) == 0 {
		t.Fatalf("%s: the fixture finds nothing", what)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n%+v\na fresh reader:\n%+v", what, got, want)
	}
}

// A serving reader asked a second question its first one's index does not
// cover answers it from an index focused on it, reading each note once
// more, exactly as a one-shot reader answers it; going back to the first
// question reads nothing but what it quotes.
func TestSecondQuestionIsFocusedToo(t *testing.T) {
	root := refocusVault(t)
	r := produce.NewServingReader(bindWS(t, root))
	defer r.Close()
	rd := countReads(t)
	a, b := "wombat", "quokka budget"
	if _, err := r.Query(bg, query(a)); err != nil {
		t.Fatal(err)
	}
	rd.reset(0)
	got, err := r.Query(bg, query(b))
	if err != nil {
		t.Fatal(err)
	}
	second := rd.counts()
	atMost(t, "the second question", second, searched(t, rd, r, b), nil)
	if !produce.ServesFocused(r) {
		t.Error("the second question built the full index in its call")
	}
	same(t, "the second question", got, fresh(t, root, b))
	rd.reset(0)
	again, err := r.Query(bg, query(a))
	if err != nil {
		t.Fatal(err)
	}
	first := rd.counts()
	onlySearched(t, "the first question asked again", first, searched(t, rd, r, a))
	same(t, "the first question asked again", again, fresh(t, root, a))
}

// A call on a new question cut while it reads the notes again keeps what
// it read: the next call with that question, after one on the first
// question, reads only the rest, and answers as a fresh reader.
func TestCutNewQuestionIsTakenUp(t *testing.T) {
	root := refocusVault(t)
	r := produce.NewServingReader(bindWS(t, root))
	defer r.Close()
	rd := countReads(t)
	a, b := "wombat", "dingo frame"
	if _, err := r.Query(bg, query(a)); err != nil {
		t.Fatal(err)
	}
	ctx := rd.reset(refocusNotes / 3)
	if _, err := r.Query(ctx, query(b)); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cut call: %v, want a cancellation", err)
	}
	cut := rd.counts()
	rd.reset(0)
	if _, err := r.Query(bg, query(a)); err != nil {
		t.Fatal(err)
	}
	rd.reset(0)
	got, err := r.Query(bg, query(b))
	if err != nil {
		t.Fatal(err)
	}
	next := rd.counts()
	atMost(t, "the cut call and the next", next, searched(t, rd, r, b), cut)
	same(t, "the call after the cut one", got, fresh(t, root, b))
}
