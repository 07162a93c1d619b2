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
