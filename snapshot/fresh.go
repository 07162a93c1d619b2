package snapshot

import (
	"context"
	"iter"
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
// racy window of the start, or a coarse change time. Linux sets the change
// time itself, from a clock with nanosecond values; a filesystem that keeps
// coarse times (FAT, exFAT, some network mounts: seconds) stamps every file
// in whole milliseconds, and there a rewrite of the same size can leave
// every stamp as it was. Such a tree is read afresh on every call.
//
// A change time in whole seconds is coarse wherever it is (one NTFS stamp
// in 10^7 falls on one by chance). One in whole milliseconds is coarse
// unless its device's files show fine times with few exceptions (see
// keepsFine): one NTFS stamp in 10,000 is whole by chance, so a Windows
// vault of 50,000 notes all but surely holds a few, and judging the tree
// by them would revalidate it whole on every call; but a mount that mixes
// coarse stamps with the odd fine one (a FUSE or cloud mount's cached
// write) is not vouched for by that one.
func racy(started time.Time, outside []policy.Outside, infos [][]workspace.Info, stamps ...[]stamp) bool {
	// The stamps first: readmit's first list is what it read again, which
	// was written since and settles the answer at once.
	all := func(yield func(workspace.Info) bool) {
		for _, ss := range stamps {
			for _, s := range ss {
				if !yield(s.info) {
					return
				}
			}
		}
		for _, o := range outside {
			if !yield(o.Info) {
				return
			}
		}
		for _, piece := range infos {
			for _, i := range piece {
				if !yield(i) {
					return
				}
			}
		}
	}
	stale := staleness(started, all)
	for i := range all {
		if stale(i) {
			return true
		}
	}
	return false
}

// staleness is staleSince with the devices of all counted (see keepsFine)
// only when a whole millisecond asks, once: almost never, and racy runs on
// every edit's answer.
func staleness(started time.Time, all iter.Seq[workspace.Info]) func(workspace.Info) bool {
	quick := staleSince(started, nil) // every whole millisecond is coarse
	counted := sync.OnceValue(func() func(workspace.Info) bool {
		devs := deviceTimes{}
		for i := range all {
			devs.see(i)
		}
		return staleSince(started, devs)
	})
	return func(i workspace.Info) bool { return quick(i) && (!wholeMillis(i) || counted()(i)) }
}

// wholeMillis is a change time in whole milliseconds but not whole seconds.
func wholeMillis(i workspace.Info) bool {
	return i.Ctime%int64(time.Millisecond) == 0 && i.Ctime%int64(time.Second) != 0
}

// deviceTimes counts, per device, the files whose change time has digits
// below a millisecond (fine) and those in whole milliseconds (whole).
// Folders are not counted: what a filesystem or a mount makes up for them
// says nothing of its files.
type deviceTimes map[uint64]struct{ fine, whole int }

func (d deviceTimes) see(i workspace.Info) {
	if !i.Exists || !i.IsRegular() {
		return
	}
	c := d[i.Dev]
	switch {
	case i.Ctime%int64(time.Millisecond) != 0:
		c.fine++
	case wholeMillis(i):
		c.whole++
	default:
		return
	}
	d[i.Dev] = c
}

// keepsFine is whether dev's files keep fine times: more of them fine
// than whole, and at most one whole millisecond, and one more per 1,000
// files (ten times what chance gives on NTFS; a vault of a few hundred
// notes holds one by chance once in a few dozen). A mount whose files are
// mostly coarse is coarse whatever few fine stamps it shows.
func (d deviceTimes) keepsFine(dev uint64) bool {
	c := d[dev]
	return c.fine > c.whole && c.whole <= 1+(c.fine+c.whole)/1000
}

// staleSince is whether a stamp is too recent, or too coarse, to prove its
// file unchanged since started (see racy); with no devices counted, every
// whole millisecond is coarse.
func staleSince(started time.Time, devs deviceTimes) func(workspace.Info) bool {
	limit := started.Add(-racyWindow).UnixNano()
	return func(i workspace.Info) bool {
		return i.Exists && (i.Mtime >= limit || i.Ctime >= limit || i.Ctime%int64(time.Second) == 0 ||
			(i.Ctime%int64(time.Millisecond) == 0 && !devs.keepsFine(i.Dev)))
	}
}

// unchanged reports whether every stamp and outside input still has the
// very same identity, size and times.
func unchanged(ws *workspace.Workspace, stamps []stamp, outside []policy.Outside) bool {
	if statCount != nil {
		statCount(len(stamps) + len(outside))
	}
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

// statCount, when set, learns how many inputs each revalidation stats;
// only tests set it.
var statCount func(n int)

// Fresh reports whether the snapshot still describes the tree: nothing racy,
// the root anchored, and every admitted file, walked directory and policy
// input with the very same identity, size and times.
func (s *Snapshot) Fresh(ws *workspace.Workspace) bool {
	return !s.racy && ws.Check() == nil && unchanged(ws, s.allStamps(), s.outside)
}

// feed is a kernel change feed over the walked folders and read
// documents (see feed_linux.go).
type feed interface {
	dirOpened(fd int, rel string)
	fileOpened(fd int, rel string)
	// pathWatch watches a file the snapshot stamps but never opens, and
	// checks it still has the stamp it was judged by.
	pathWatch(ws *workspace.Workspace, rel string, info workspace.Info)
	// drain returns what changed since the last drain, and whether any
	// change was more than a file's content or attributes (a name created,
	// deleted or moved); ok is false when the feed cannot vouch for the
	// tree any more.
	drain() (changed map[string]bool, structural, ok bool)
	usable() bool
	close()
}

// Source serves snapshots of one bound workspace to a long-lived process. It
// keeps the last snapshot in memory (never on disk) and reuses it only after
// proving it still describes the tree, so a changed, added, deleted or newly
// ignored file shows on the very next call.
//
// With Watch, the proof on Linux is the kernel's change feed: a watch on
// every walked folder and read document, drained at the start of every call
// (a change that completed before the call began is in its answer), plus a
// stat of the few policy inputs that are not walked (.git's, and those
// outside the workspace). Nothing changed costs the same at any size. When
// the feed cannot vouch (no inotify, a watch limit, a network or FUSE
// filesystem, a queue overflow, any watch error), the call falls back to a
// stat of every input, as without Watch.
//
// After a change the feed saw, when it saw only content changes (no name
// created, deleted or moved) to documents the last snapshot read, and the
// unwatched inputs kept their stamps, just those documents are read again,
// under the admission they were read under, and the rest of the last
// snapshot is kept as it was (readmit); the feed and the stats prove after
// the reads that the policy held still. Anything else (a policy input, a
// folder, a file left out unread, a name created or moved, a document that
// is now another file, hard-linked or too large, a read that failed) walks
// and admits the whole tree again, as a fresh snapshot does, and reads again
// only documents whose path changed or whose stamp differs.
// Safe for concurrent use.
type Source struct {
	ws   *workspace.Workspace
	opt  Options
	mu   sync.Mutex
	snap *Snapshot
	feed feed
	// pending are documents the feed saw change while the last snapshot
	// was read: the next call reads them again.
	pending map[string]bool
	// kept is what a call that failed (cancelled, or out of time) had
	// finished, never served: the next take keeps its documents exactly as
	// it keeps a fresh snapshot's, where nothing changed since, so repeated
	// calls converge. keptChanged is what the feed saw change since kept's
	// documents were proved (nil when nothing).
	kept        *Snapshot
	keptChanged map[string]bool
	// keptPlan is the walk and admission kept's documents were read
	// under, when its take got that far: the next call goes on under it
	// instead of walking again, while the feed proves it holds (planHolds).
	keptPlan *plan
}

// NewSource returns a Source over ws; opt applies to every snapshot it takes.
func NewSource(ws *workspace.Workspace, opt Options) *Source {
	return &Source{ws: ws, opt: opt}
}

// Workspace is the bound workspace.
func (s *Source) Workspace() *workspace.Workspace { return s.ws }

// Close releases the change feed. The Source still works after it, by stat.
func (s *Source) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.feed != nil {
		s.feed.close()
		s.feed = nil
		// What the feed would have told is gone with it.
		s.kept, s.keptChanged, s.keptPlan = nil, nil, nil
	}
	s.opt.Watch = false
}

// Snapshot returns a snapshot that describes the tree now: the last one when
// it is proved fresh, else a new one that reuses what is proved unchanged.
// A call that fails leaves what it finished for the next one (see kept).
func (s *Source) Snapshot(ctx context.Context) (*Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := s.snap
	var changed map[string]bool
	reuse, contentOnly := false, false
	var resumed *plan
	if prev != nil {
		var fresh bool
		fresh, changed, reuse, contentOnly = s.check(prev)
		if fresh {
			return prev, nil
		}
	} else if s.kept != nil {
		prev, changed, reuse, resumed = s.resume()
	}
	// What was drained is in changed alone from here: a failed call must not
	// leave prev to be served as fresh.
	s.snap, s.kept, s.keptChanged, s.keptPlan = nil, nil, nil, nil
	if contentOnly {
		snap, err := readmit(ctx, s.ws, s.opt, s.feed, prev, changed)
		if err != nil {
			s.kept, s.keptChanged = prev, changed
			return nil, err
		}
		if snap != nil && s.held(snap, changed) {
			if readmitted != nil {
				readmitted()
			}
			s.snap = snap
			return snap, nil
		}
	}
	if s.opt.Watch && (s.feed == nil || !s.feed.usable()) {
		if s.feed != nil {
			s.feed.close()
		}
		// A new feed has no watch on a document it did not read, so
		// nothing is reused under it; without any feed, stamps decide.
		if s.feed = newFeed(s.ws.Root()); s.feed != nil {
			reuse, resumed = false, nil
		}
	}
	if !reuse {
		prev, resumed = nil, nil
	}
	snap, done, p, err := take(ctx, s.ws, s.opt, s.feed, prev, changed, resumed)
	if err != nil {
		switch {
		case done != nil:
			s.kept, s.keptChanged = done, changed
			if s.feed != nil {
				// Only the feed can prove a plan still holds.
				s.keptPlan = p
			}
		case prev != nil:
			s.kept, s.keptChanged = prev, changed
		}
		return nil, err
	}
	s.snap = snap
	return snap, nil
}

// resume takes up what a failed call left (kept): the documents to keep
// from and what changed since, as check does for a kept snapshot. reuse is
// false when nothing can vouch for them any more. p is the plan kept's
// take made, when the feed proves it still describes the tree (see
// planHolds), so the walk and the admission are not done again.
func (s *Source) resume() (prev *Snapshot, changed map[string]bool, reuse bool, p *plan) {
	pending := s.pending
	s.pending = nil
	if s.ws.Check() != nil {
		return nil, nil, false, nil
	}
	changed = make(map[string]bool, len(s.keptChanged)+len(pending))
	for rel := range s.keptChanged {
		changed[rel] = true
	}
	for rel := range pending {
		changed[rel] = true
	}
	if s.feed != nil {
		more, structural, ok := s.feed.drain()
		if !ok || !s.feed.usable() {
			return nil, nil, false, nil
		}
		for rel := range more {
			changed[rel] = true
		}
		if !structural && s.keptPlan != nil {
			p = s.planHolds(s.keptPlan, changed)
		}
		return s.kept, changed, true, p
	}
	if len(pending) > 0 {
		// What the feed saw went with it: keep nothing.
		return nil, nil, false, nil
	}
	// No feed: every stamp decides, in keepable.
	return s.kept, changed, true, nil
}

// planHolds returns kp, with the stamps of the documents changed since
// taken afresh, when it still describes the tree: the feed, watching every
// folder kp walked since before it was listed, saw no name created, deleted
// or moved (the caller checked), nothing it saw changed is a policy input,
// a walked folder, an ignore file or a document left out unread, the
// inputs no walk watches keep their stamps, and every changed document is
// still a regular single-link file within the limits on the same inode.
// Then a walk and an admission now would find what kp holds, but for
// those stamps. Otherwise nil: the take walks and admits afresh.
func (s *Source) planHolds(kp *plan, changed map[string]bool) *plan {
	if racy(kp.started, kp.adm.Outside, nil, kp.fixed) || !unchanged(s.ws, kp.fixed, kp.adm.Outside) {
		return nil
	}
	fixed := make(map[string]bool, len(kp.inputs)+len(kp.leftOut))
	for _, st := range kp.inputs {
		fixed[st.rel] = true
	}
	for _, st := range kp.leftOut {
		fixed[st.rel] = true
	}
	if kp.index == nil {
		kp.index = make(map[string]int, len(kp.jobs))
		for i, c := range kp.jobs {
			kp.index[c.rel] = i
		}
	}
	var idx []int
	var rels []string
	for rel := range changed {
		if fixed[rel] || rel == "." || rel == "" {
			return nil
		}
		if i, ok := kp.index[rel]; ok {
			idx = append(idx, i)
			rels = append(rels, rel)
		}
	}
	if len(rels) == 0 {
		return kp
	}
	infos, err := s.ws.StatMany(rels)
	if err != nil {
		return nil
	}
	np := *kp
	np.jobs = append([]candidate(nil), kp.jobs...)
	for k, i := range idx {
		now, old := infos[k], kp.jobs[i].info
		if !now.IsRegular() || now.Nlink != 1 || now.Size > ceilings.file || now.Dev != old.Dev || now.Ino != old.Ino {
			return nil
		}
		np.total += now.Size - old.Size
		np.jobs[i].info = now
	}
	if np.total > ceilings.bytes-np.configBytes {
		return nil
	}
	return &np
}

// readmitted runs when a call was served by the per-document path; only
// tests set it.
var readmitted func()

// check decides whether prev still describes the tree. When it does not,
// changed names the paths the feed saw change (nil when it cannot say),
// reuse says whether documents with unchanged stamps may be kept, and
// contentOnly whether the per-document path may be tried: the feed saw
// only content changes, and the inputs it does not watch kept their stamps.
func (s *Source) check(prev *Snapshot) (fresh bool, changed map[string]bool, reuse, contentOnly bool) {
	pending := s.pending
	s.pending = nil
	if s.ws.Check() != nil {
		return false, nil, false, false
	}
	if s.feed != nil && s.feed.usable() {
		changed, structural, ok := s.feed.drain()
		if ok {
			for rel := range pending {
				changed[rel] = true
			}
			still := !prev.racyUnwatched && unchanged(s.ws, prev.unwatched, prev.outside)
			if len(changed) == 0 && still {
				return true, nil, false, false
			}
			return false, changed, true, still && !structural
		}
	}
	if len(pending) > 0 {
		// What the feed saw went with it: keep nothing.
		return false, nil, false, false
	}
	// No feed to trust: every stamp decides, as everywhere else.
	if prev.Fresh(s.ws) {
		return true, nil, false, false
	}
	return false, nil, true, false
}

// held proves, after readmit read, that the policy held still through the
// reads, as the stat after a full take's reads does: the feed saw nothing
// since but content changes to documents snap (readmit's, under prev's
// plan) read, which the next call reads again, and the inputs it does not
// watch kept their stamps. When it cannot, changed gains what the feed
// saw, for the full path.
func (s *Source) held(snap *Snapshot, changed map[string]bool) bool {
	more, structural, ok := s.feed.drain()
	for rel := range more {
		changed[rel] = true
	}
	if !ok || structural {
		return false
	}
	for rel := range more {
		if _, job := snap.plan.index[rel]; !job {
			return false
		}
	}
	if !unchanged(s.ws, snap.unwatched, snap.outside) {
		return false
	}
	s.pending = more
	return true
}
