package snapshot

import (
	"context"
	"runtime"
	"sync/atomic"
)

// Meter counts the documents one call's snapshots go through, for a
// progress line or an MCP progress notification: how many are done (read
// now, or kept from earlier work) of how many are known so far (the walk
// raises the total as it finds them). It holds counts only, never a path or
// a name. Safe for concurrent use; the snapshot only stores, the caller
// polls at its own pace.
type Meter struct {
	done, fresh, total atomic.Int64
}

// Counts returns the documents done and the documents known so far.
func (m *Meter) Counts() (done, total int64) { return m.done.Load(), m.total.Load() }

// Read returns how many documents were read and analysed afresh (not kept
// from earlier work).
func (m *Meter) Read() int64 { return m.fresh.Load() }

type meterKey struct{}

// WithMeter returns ctx carrying m: every snapshot taken under it counts
// into m.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// MeterOf returns the Meter ctx carries, or nil.
func MeterOf(ctx context.Context) *Meter {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	return m
}

// Expect raises the total by n: documents a call found it must go through
// again after its snapshot (a search index reading and tokenizing them),
// so its progress goes on growing. Nil-safe, as Did.
func (m *Meter) Expect(n int) {
	if m != nil {
		m.total.Add(int64(n))
	}
}

// Did counts one more of the documents Expect announced as done.
func (m *Meter) Did() {
	if m != nil {
		m.done.Add(1)
	}
}

// The methods below are nil-safe, so the read path calls them unguarded.

func (m *Meter) known(n int) {
	if m != nil {
		m.total.Store(int64(n))
	}
}

func (m *Meter) start() {
	if m != nil {
		m.done.Store(0)
	}
}

func (m *Meter) tick(kept bool) {
	if m == nil {
		return
	}
	m.done.Add(1)
	if !kept {
		m.fresh.Add(1)
	}
}

type workersKey struct{}

// WithWorkers returns ctx asking every snapshot taken under it to list and
// read on at most n goroutines (at least one). With one, the work runs on
// the caller's own goroutine: a background reader that locked it to a
// thread of the lowest priority keeps the reading there.
func WithWorkers(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, workersKey{}, max(n, 1))
}

// Workers is how many goroutines a pass over documents may use under ctx:
// every core, or fewer when WithWorkers asked; a pass that reads the
// snapshot's documents again (the search index's) keeps to it too.
func Workers(ctx context.Context) int { return workersOf(ctx) }

func workersOf(ctx context.Context) int {
	n := runtime.GOMAXPROCS(0)
	if w, ok := ctx.Value(workersKey{}).(int); ok {
		n = min(n, w)
	}
	return n
}

// spawn runs fn on a goroutine of its own, or on the caller's when it is
// the only one of its pass.
func spawn(workers int, fn func()) {
	if workers == 1 {
		fn()
		return
	}
	go fn()
}
