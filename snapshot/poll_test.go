package snapshot

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/reason"
)

// cutCtx is cancelled at the nth look at its Err once armed: a cut that
// lands at a given look of a loop, the same on a fast machine and a slow
// one.
type cutCtx struct {
	context.Context
	cancel context.CancelFunc
	armed  atomic.Bool
	n      int64
	looks  atomic.Int64
}

func newCut(parent context.Context, n int64) *cutCtx {
	ctx, cancel := context.WithCancel(parent)
	return &cutCtx{Context: ctx, cancel: cancel, n: n}
}

func (c *cutCtx) Err() error {
	if c.armed.Load() && c.looks.Add(1) == c.n {
		c.cancel()
	}
	return c.Context.Err()
}

// A call cancelled in a step after the reads (assembling the documents,
// hashing the fingerprint) stops within that step, at its nth look at
// the context (past the first thousand documents), and leaves what it read
// for the next call, which reads again only the note changed meanwhile and
// serves what a fresh snapshot serves. Before, these steps looked at the
// context only at their end: at 50,000 notes on a saturated machine, a
// cancelled call held the slot past the grace.
func TestCancelAfterReads(t *testing.T) {
	const notes = 2600 // assemble looks at 0, 1024 and 2048; the fingerprint at pieces 0, 4 and 8
	files := map[string]string{}
	for i := range notes {
		files[fmt.Sprintf("notes/n%04d.md", i)] = fmt.Sprintf("# Note %d\n\nwombat %d\n", i, i%7)
	}
	root := testws.Thin(t, files)
	time.Sleep(80 * time.Millisecond) // past the racy window
	ws := testws.Bind(t, root)
	for _, step := range []struct {
		name string
		hook *func()
		look int64
		// next is the hook of the step after it, which a cut call never
		// reaches.
		next *func()
	}{
		{"assemble", &assembling, 3, &fingerprinting},
		{"fingerprint", &fingerprinting, 2, nil},
	} {
		t.Run(step.name, func(t *testing.T) {
			src := NewSource(ws, Options{})
			defer src.Close()
			ctx := newCut(context.Background(), step.look)
			defer ctx.cancel()
			*step.hook = func() { ctx.armed.Store(true) }
			reached := false
			if step.next != nil {
				*step.next = func() { reached = true }
			}
			_, err := src.Snapshot(ctx)
			*step.hook = nil
			if step.next != nil {
				*step.next = nil
			}
			if !errors.Is(err, context.Canceled) || reason.Of(err) != reason.ProducerUnavailable {
				t.Fatalf("cut at look %d of %s: %v, want a cancellation", step.look, step.name, err)
			}
			if got := ctx.looks.Load(); got != step.look {
				t.Errorf("the context was looked at %d times after the cut's arming, want it to stop at look %d", got, step.look)
			}
			if reached {
				t.Errorf("the step after %s ran after the cut", step.name)
			}
			testws.Write(t, root, "notes/n0007.md", "# Changed\n\nwombat wombat quokka\n")
			defer testws.Write(t, root, "notes/n0007.md", files["notes/n0007.md"])
			m := &Meter{}
			got, err := src.Snapshot(WithMeter(context.Background(), m))
			if err != nil {
				t.Fatal(err)
			}
			if m.Read() != 1 {
				t.Errorf("the call after the cut read %d notes afresh, want only the changed one", m.Read())
			}
			want, err := Take(context.Background(), ws, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Fingerprint != want.Fingerprint || len(got.Docs) != len(want.Docs) {
				t.Errorf("after the cut: %s over %d notes, a fresh snapshot: %s", got.Fingerprint, len(got.Docs), want.Fingerprint)
			}
		})
	}
}
