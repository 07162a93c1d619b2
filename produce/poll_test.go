package produce_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// afterReadsCtx is cancelled at its cut-th look at Err after every
// document known was read (never when cut is 0), and counts those looks:
// a cut that lands at one given place of the steps after the reads, the
// same on any machine.
type afterReadsCtx struct {
	context.Context
	cancel context.CancelFunc
	m      *snapshot.Meter
	cut    int64
	looks  atomic.Int64
}

func newAfterReads(cut int64) *afterReadsCtx {
	m := &snapshot.Meter{}
	ctx, cancel := context.WithCancel(snapshot.WithMeter(context.Background(), m))
	return &afterReadsCtx{Context: ctx, cancel: cancel, m: m, cut: cut}
}

func (c *afterReadsCtx) Err() error {
	if done, total := c.m.Counts(); total > 0 && done == total && c.looks.Add(1) == c.cut {
		c.cancel()
	}
	return c.Context.Err()
}

// A serving reader's call cancelled anywhere after its reads (the
// documents assembled, the fingerprint, the index build, check's findings,
// the search) returns the cancellation, and the next call answers as a
// fresh reader does, a note changed between the two included: what the
// cut call kept is proved current like any warm call's. Each loop over the
// documents after the reads looks at the context once per thousand at
// least (check's findings looked only at the end).
func TestCancelledAnywhereAfterReads(t *testing.T) {
	// More than two thousand notes, so each loop looks at the context
	// more than twice; -short (the Windows run under Wine, where every
	// read is slow: 80 s with doubling cuts) keeps one look past the
	// first thousand and cuts at looks 1, 8, 64 and 512.
	notes, next := 2600, func(cut int64) int64 { return cut + max(1, min(cut/4, 97)) }
	if testing.Short() {
		notes, next = 1100, func(cut int64) int64 { return max(cut+1, 8*cut) }
	}
	files := map[string]string{}
	for i := range notes {
		files[fmt.Sprintf("notes/n%04d.md", i)] = fmt.Sprintf("# Note %d\n\nwombat %d quokka\n", i, i%9)
	}
	root := testws.Thin(t, files)
	time.Sleep(80 * time.Millisecond) // past the racy window
	ws := bindWS(t, root)
	variants := []string{"# Changed\n\nwombat wombat quokka\n", "# Changed again\n\nwombat quokka quokka quokka\n"}
	for _, tool := range []string{"query", "check"} {
		t.Run(tool, func(t *testing.T) {
			call := func(ctx context.Context, r *produce.Reader) (any, error) {
				if tool == "check" {
					return r.Check(ctx, produce.CheckArgs{})
				}
				return r.Query(ctx, produce.QueryArgs{Text: "wombat quokka", Limit: 10, SnippetChars: 80})
			}
			fresh := map[int]any{}
			want := func(v int) any {
				if fresh[v] == nil {
					r := produce.NewReader(ws)
					res, err := call(bg, r)
					if err != nil {
						t.Fatal(err)
					}
					fresh[v] = res
				}
				return fresh[v]
			}
			testws.Write(t, root, "notes/n0007.md", variants[0])
			count := newAfterReads(0)
			if _, err := call(count, produce.NewServingReader(ws)); err != nil {
				t.Fatal(err)
			}
			// A look per thousand documents at least in each loop over them
			// after the reads: assembling, hashing, and check's findings or
			// the index build (a look per document).
			looks, least := count.looks.Load(), int64(3*(notes+1023)/1024)
			if tool == "query" {
				least = int64(notes)
			}
			if looks < least {
				t.Fatalf("%d looks at the context after the reads of %d notes, want %d at least", looks, notes, least)
			}
			// Every look of the first few, then a spread over the rest.
			for cut := int64(1); cut <= looks; cut = next(cut) {
				r := produce.NewServingReader(ws)
				ctx := newAfterReads(cut)
				_, err := call(ctx, r)
				ctx.cancel()
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("cut at look %d of %d after the reads: %v, want a cancellation", cut, looks, err)
				}
				v := int(cut % 2)
				testws.Write(t, root, "notes/n0007.md", variants[v])
				got, err := call(bg, r)
				if err != nil {
					t.Fatalf("after a cut at look %d: %v", cut, err)
				}
				if !reflect.DeepEqual(got, want(v)) {
					t.Fatalf("after a cut at look %d:\n%+v\na fresh reader:\n%+v", cut, got, want(v))
				}
				r.Close()
			}
		})
	}
}
