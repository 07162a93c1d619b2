package produce_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
)

// After a focused answer, Warm builds the full index and makes it the
// serving one: a third question then reads nothing but what it quotes, and
// answers as a fresh reader. A Warm cut halfway leaves the focused index
// serving (the full one is never searched incomplete); the next Warm reads
// only the rest, and a note changed between is read again.
func TestWarmBuildsTheFullIndexAfterAFocusedAnswer(t *testing.T) {
	for _, cutAt := range []int{0, refocusNotes / 2} {
		t.Run(fmt.Sprint("cut at ", cutAt), func(t *testing.T) {
			root := refocusVault(t)
			r := produce.NewServingReader(bindWS(t, root))
			defer r.Close()
			rd := countReads(t)
			if _, err := r.Query(bg, query("wombat")); err != nil {
				t.Fatal(err)
			}
			if !r.Pending() {
				t.Fatal("no background work after a focused answer")
			}
			var cut map[string]int
			if cutAt > 0 {
				ctx := rd.reset(cutAt)
				if err := r.Warm(ctx); !errors.Is(err, context.Canceled) {
					t.Fatalf("the cut Warm: %v", err)
				}
				cut = rd.counts()
				if !produce.ServesFocused(r) || !r.Pending() {
					t.Fatal("a cut Warm made its incomplete index the serving one")
				}
				rd.reset(0)
				got, err := r.Query(bg, query("gate cache"))
				if err != nil {
					t.Fatal(err)
				}
				same(t, "a question after the cut Warm", got, fresh(t, root, "gate cache"))
				testws.Write(t, root, "notes/n000.md", "# Changed\n\nquokka timeout timeout quokka\n")
				delete(cut, "notes/n000.md")
			}
			rd.reset(0)
			if err := r.Warm(bg); err != nil {
				t.Fatal(err)
			}
			for p, n := range rd.counts() {
				if n+cut[p] > 1 {
					t.Errorf("the background build read %s %d times", p, n+cut[p])
				}
			}
			if produce.ServesFocused(r) || r.Pending() {
				t.Fatal("the full index does not serve after Warm")
			}
			for _, q := range []string{"quokka timeout", "budget dingo", "wombat"} {
				rd.reset(0)
				got, err := r.Query(bg, query(q))
				if err != nil {
					t.Fatal(err)
				}
				third := rd.counts()
				onlySearched(t, q, third, searched(t, rd, r, q))
				same(t, q, got, fresh(t, root, q))
			}
		})
	}
}

// A third question neither focused index covers builds the full index in
// its call, taking up what a cut Warm built of it (no note is read twice
// for it), and answers as a fresh reader; every question after it reads
// only what its search reads.
func TestThirdQuestionBuildsTheFullIndex(t *testing.T) {
	root := refocusVault(t)
	r := produce.NewServingReader(bindWS(t, root))
	defer r.Close()
	rd := countReads(t)
	for _, q := range []string{"wombat", "quokka budget"} {
		if _, err := r.Query(bg, query(q)); err != nil {
			t.Fatal(err)
		}
	}
	ctx := rd.reset(refocusNotes / 2)
	if err := r.Warm(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cut Warm: %v", err)
	}
	warm := rd.counts()
	rd.reset(0)
	c := "gate cache"
	got, err := r.Query(bg, query(c))
	if err != nil {
		t.Fatal(err)
	}
	third := rd.counts()
	if produce.ServesFocused(r) || r.Pending() {
		t.Fatal("the third question did not build the full index")
	}
	atMost(t, "the cut Warm and the third question", third, searched(t, rd, r, c), warm)
	same(t, "the third question", got, fresh(t, root, c))
	for _, q := range []string{"dingo frame", "wombat"} {
		rd.reset(0)
		got, err := r.Query(bg, query(q))
		if err != nil {
			t.Fatal(err)
		}
		after := rd.counts()
		onlySearched(t, q, after, searched(t, rd, r, q))
		same(t, q, got, fresh(t, root, q))
	}
}
