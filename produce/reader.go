package produce

import (
	"context"
	"sync"

	"github.com/vivary-dev/vivary-go/workspace"
)

// Reader serves producers over one bound workspace. It keeps the last
// snapshot in memory (never on disk) and reuses it only after Fresh has
// revalidated it against the tree, so a changed, added, deleted or newly
// ignored file shows on the very next call. Safe for concurrent use.
type Reader struct {
	ws    *workspace.Workspace
	mu    sync.Mutex
	snap  *Snapshot
	index *searchIndex
}

// NewReader returns a Reader over ws.
func NewReader(ws *workspace.Workspace) *Reader { return &Reader{ws: ws} }

// Workspace is the bound workspace.
func (r *Reader) Workspace() *workspace.Workspace { return r.ws }

// Snapshot returns a snapshot that describes the tree now.
func (r *Reader) Snapshot(ctx context.Context) (*Snapshot, error) {
	snap, _, err := r.snapshot(ctx)
	return snap, err
}

func (r *Reader) snapshot(ctx context.Context) (*Snapshot, *searchIndex, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.snap == nil || !r.snap.Fresh(r.ws) {
		r.snap, r.index = nil, nil
		snap, err := Take(ctx, r.ws)
		if err != nil {
			return nil, nil, err
		}
		r.snap = snap
	}
	return r.snap, r.index, nil
}

// searchable is snapshot plus the search index, built on first use.
func (r *Reader) searchable(ctx context.Context) (*Snapshot, *searchIndex, error) {
	snap, _, err := r.snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.snap != snap || r.index == nil {
		// The index belongs to this snapshot only.
		idx := newSearchIndex(snap)
		if r.snap == snap {
			r.index = idx
		}
		return snap, idx, nil
	}
	return snap, r.index, nil
}

// ranked is the search shared by query and find: the fresh snapshot and the
// projected top hits for a.
func (r *Reader) ranked(ctx context.Context, a searchArgs) (*Snapshot, []projected, error) {
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
