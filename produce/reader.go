// Package produce owns the four read producers (check, query, find, capsule)
// over the snapshot package's documents. A producer takes a context, a bound
// workspace and typed arguments and returns a plain value that marshals to
// its published JSON; it writes nothing anywhere, reads workspace bytes only
// through a snapshot (or, for the capsule's checkout facts, after the privacy
// policy admitted their path), and answers whole or with a typed reason
// (never a silently shortened result).
package produce

import (
	"context"
	"sync"

	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/snapshot"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Omission is one counted row of what a result left out.
type Omission = snapshot.Omission

// Reader serves producers over one bound workspace: a snapshot source that
// proves its kept snapshot fresh on every call, and the search index of
// that snapshot, built on first use. Safe for concurrent use.
type Reader struct {
	ws     *workspace.Workspace
	source *snapshot.Source
	mu     sync.Mutex
	snap   *snapshot.Snapshot // the snapshot index belongs to
	index  *searchIndex
}

// NewReader returns a Reader over ws.
func NewReader(ws *workspace.Workspace) *Reader {
	return &Reader{ws: ws, source: snapshot.NewSource(ws, snapshot.Options{})}
}

// NewServingReader returns a Reader for a long-lived process (vivary-mcp):
// its snapshots are kept fresh by the kernel's change feed where there is
// one, so a call on an unchanged tree costs the same at any size. Close it
// when done.
func NewServingReader(ws *workspace.Workspace) *Reader {
	return &Reader{ws: ws, source: snapshot.NewSource(ws, snapshot.Options{Watch: true})}
}

// Close releases the change feed; the Reader keeps working by stat.
func (r *Reader) Close() { r.source.Close() }

// Workspace is the bound workspace.
func (r *Reader) Workspace() *workspace.Workspace { return r.ws }

// Snapshot returns a snapshot that describes the tree now.
func (r *Reader) Snapshot(ctx context.Context) (*snapshot.Snapshot, error) {
	return r.source.Snapshot(ctx)
}

// searchable is a fresh snapshot plus its search index, built on first use.
func (r *Reader) searchable(ctx context.Context) (*snapshot.Snapshot, *searchIndex, error) {
	snap, err := r.source.Snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.snap != snap || r.index == nil {
		// The index belongs to this snapshot only.
		r.snap, r.index = snap, newSearchIndex(snap)
	}
	return snap, r.index, nil
}

// ranked is the search shared by query and find: the fresh snapshot and the
// projected top hits for a.
func (r *Reader) ranked(ctx context.Context, a searchArgs) (*snapshot.Snapshot, []projected, error) {
	snap, idx, err := r.searchable(ctx)
	if err != nil {
		return nil, nil, err
	}
	hits, err := idx.search(ctx, a)
	if err != nil {
		return nil, nil, err
	}
	proj, err := project(hits)
	if err != nil {
		return nil, nil, err
	}
	return snap, proj, nil
}

func cancelled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return reason.Wrap(reason.ProducerUnavailable, "the call was cancelled", err)
	}
	return nil
}

func workLimit(msg string) error { return reason.New(reason.WorkLimitExceeded, msg) }
