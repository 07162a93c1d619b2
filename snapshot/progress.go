package snapshot

import (
	"context"
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
