package snapshot

import (
	"context"
	"sync"
	"time"

	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/workspace"
)

// stamp is what revalidation compares: the identity of every admitted input.
type stamp struct {
	rel  string
	info workspace.Info
}

// racyWindow covers the coarse clock the kernel stamps files with: a file
// changed within it of the snapshot may change again with equal stamps.
const racyWindow = 50 * time.Millisecond

// racy reports stamps that cannot prove a file unchanged: times within the
// racy window of the start, or a change time in whole milliseconds. Linux
// sets the change time itself, from a clock with nanosecond values; whole
// milliseconds mean a filesystem that keeps coarse times (FAT, exFAT, some
// network mounts: seconds), where a rewrite of the same size can leave
// every stamp as it was. Such a tree is read afresh on every call.
func racy(stamps []stamp, outside []policy.Outside, started time.Time) bool {
	limit := started.Add(-racyWindow).UnixNano()
	recent := func(i workspace.Info) bool {
		return i.Exists && (i.Mtime >= limit || i.Ctime >= limit || i.Ctime%int64(time.Millisecond) == 0)
	}
	for _, s := range stamps {
		if recent(s.info) {
			return true
		}
	}
	for _, o := range outside {
		if recent(o.Info) {
			return true
		}
	}
	return false
}

// unchanged reports whether every stamp and outside input still has the
// very same identity, size and times.
func unchanged(ws *workspace.Workspace, stamps []stamp, outside []policy.Outside) bool {
	rels := make([]string, len(stamps))
	for i, st := range stamps {
		rels[i] = st.rel
	}
	infos, err := ws.StatMany(rels)
	if err != nil {
		return false
	}
	for i, st := range stamps {
		if !workspace.Same(st.info, infos[i]) {
			return false
		}
	}
	for _, o := range outside {
		if !workspace.Same(o.Info, workspace.StatPath(o.Path)) {
			return false
		}
	}
	return true
}

// Fresh reports whether the snapshot still describes the tree: nothing racy,
// the root anchored, and every admitted file, walked directory and policy
// input with the very same identity, size and times.
func (s *Snapshot) Fresh(ws *workspace.Workspace) bool {
	return !s.racy && ws.Check() == nil && unchanged(ws, s.stamps, s.outside)
}

// Source serves snapshots of one bound workspace to a long-lived process. It
// keeps the last snapshot in memory (never on disk) and reuses it only after
// proving it still describes the tree, so a changed, added, deleted or newly
// ignored file shows on the very next call. Safe for concurrent use.
type Source struct {
	ws   *workspace.Workspace
	opt  Options
	mu   sync.Mutex
	snap *Snapshot
}

// NewSource returns a Source over ws; opt applies to every snapshot it takes.
func NewSource(ws *workspace.Workspace, opt Options) *Source {
	return &Source{ws: ws, opt: opt}
}

// Workspace is the bound workspace.
func (s *Source) Workspace() *workspace.Workspace { return s.ws }

// Snapshot returns a snapshot that describes the tree now: the last one when
// it is proved fresh, else a new one.
func (s *Source) Snapshot(ctx context.Context) (*Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap == nil || !s.snap.Fresh(s.ws) {
		s.snap = nil
		snap, err := Take(ctx, s.ws, s.opt)
		if err != nil {
			return nil, err
		}
		s.snap = snap
	}
	return s.snap, nil
}
