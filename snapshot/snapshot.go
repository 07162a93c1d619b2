// Package snapshot owns the privacy-critical read path every producer
// stands on: the walk of the tree, privacy admission of what it found, the
// reads and content screen, and the proof that the policy held still while
// the workspace was read; and, for a long-lived process, the proof that a
// kept snapshot still describes the tree. It reads bytes only after the
// policy admitted their path, never follows a link, never writes anything,
// and never keeps anything on disk. A snapshot is whole or the call is
// refused with a typed reason; what it left out is counted in omissions.
package snapshot

import (
	"context"
	"strings"
	"time"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Snapshot is the admitted, analysed documents of a workspace at one moment.
// It is never changed after Take returns it.
type Snapshot struct {
	Config *policy.Config
	Docs   []*graph.Document // UTF-16 path order
	// prepared holds what Options.Prepare returned for each of Docs, in
	// pieces as infos (see Prepared).
	prepared    [][]any
	Graph       *graph.Graph
	Complete    bool
	Omissions   []Omission // aggregated rows
	Fingerprint string
	Admission   *policy.Admission
	// Unreadable are the admitted documents whose read failed (changed
	// while read, or unavailable), in path order: names the policy let
	// through, so a message may show them.
	Unreadable []string
	// UnreadableFolders are the folders left out because they cannot be
	// searched (filesystem/unreadable), in walk order: folders the policy
	// let through, so a message may name them.
	UnreadableFolders []string
	// Hidden is every path left out, with its rule, in path order: only
	// with Options.ListHidden, for the owner at the terminal.
	Hidden      []Hidden
	configFiles []configFile
	// stamps are the stamps of the inputs, of the documents left out
	// unread and of those dropped for what they held; infos are the
	// served documents', Docs[k]'s at infos[k/chunk][k%chunk], in pieces
	// a snapshot after an edit shares (see allStamps).
	stamps  []stamp
	infos   [][]workspace.Info
	racy    bool // some input changed too close to the snapshot to trust its stamps
	outside []policy.Outside
	// unwatched are the policy inputs no walk watches (the fixed ones: the
	// policy files' and .git's entries); racyUnwatched is racy over them
	// and the outside inputs, or a read failed.
	unwatched     []stamp
	racyUnwatched bool
	started       time.Time
	// plan is what the documents were admitted under, and results what
	// reading each of its jobs gave: what a re-read of a few starts from.
	plan    *plan
	results []docResult
	// hashed is how Fingerprint was hashed, which a snapshot after an
	// edit resumes from (see fingerprint).
	hashed *hashed
	// rows are the omissions counted, Omissions before aggregation;
	// edgeDocs how many documents omitted edges, and whole whether the
	// snapshot is complete but for those (see replaced).
	rows     map[[2]string]int
	edgeDocs int
	whole    bool
}

// Prepared is what Options.Prepare returned for Docs[i] (nil without a
// Prepare).
func (s *Snapshot) Prepared(i int) any {
	if i < 0 || i/chunk >= len(s.prepared) || i%chunk >= len(s.prepared[i/chunk]) {
		return nil
	}
	return s.prepared[i/chunk][i%chunk]
}

// allStamps is every stamp the snapshot was judged by.
func (s *Snapshot) allStamps() []stamp {
	out := make([]stamp, 0, len(s.stamps)+len(s.Docs))
	out = append(out, s.stamps...)
	for k, d := range s.Docs {
		out = append(out, stamp{d.Path, s.infos[k/chunk][k%chunk]})
	}
	return out
}

// piecesOf is xs in pieces of chunk, as Snapshot.infos holds them.
func piecesOf[T any](xs []T) [][]T {
	out := make([][]T, 0, (len(xs)+chunk-1)/chunk)
	for lo := 0; lo < len(xs); lo += chunk {
		out = append(out, xs[lo:min(lo+chunk, len(xs)):min(lo+chunk, len(xs))])
	}
	return out
}

// Options shape how a snapshot is taken.
type Options struct {
	// Prepare, when set, runs once for each admitted document during the
	// read pass, on the worker that read it, with its text (which nothing
	// keeps after it) hot in the cache: per-document work such as
	// tokenising for a search index. It runs concurrently with itself and
	// must not keep d beyond the snapshot's life, change it, or keep text.
	// Its result lands in Snapshot.Prepared.
	Prepare func(d *graph.Document, text string) any
	// Watch asks a Source to keep a kernel change feed (see Source).
	Watch bool
	// ListHidden lists every path left out in Snapshot.Hidden, with its
	// rule, the line and class of a credential a document holds included
	// (never its value): for `vivary check --show-hidden`, the owner's own
	// view at the terminal. What answers an agent never sets it.
	ListHidden bool
	// Planned, when set, takes the snapshot the workspace will have once
	// an adoption writes its files: read under the planned type policy and
	// ignore block instead of the ones on disk (see Planned).
	Planned *Planned
}

// Planned is what `create-vivary adopt` will make the workspace's policy:
// its composed type policy, and which generated .gitignore block it
// writes. A snapshot taken under it judges and reads notes exactly as the
// adopted workspace's every snapshot will, before adopt writes anything.
type Planned struct {
	Config    *policy.Config
	Cocoindex bool
}

// afterReads runs between the reads and the proof that the policy held,
// beforeReads between the walk and the reads; only tests set them.
var afterReads, beforeReads func()

type configFile struct {
	rel    string
	data   []byte
	sha256 string
}

// Take builds a fresh snapshot: policy files, a walk of the tree, privacy
// admission, the reads, and admission again to prove the policy held still.
func Take(ctx context.Context, ws *workspace.Workspace, opt Options) (*Snapshot, error) {
	snap, _, _, err := take(ctx, ws, opt, nil, nil, nil, nil)
	return snap, err
}

// take is Take with a change feed to set watches on (or nil), and the
// previous snapshot whose documents may be kept where nothing changed (or
// nil): changed are the paths a feed saw change (nil when none can say).
// resumed, when set, is the plan of a take that failed, proved to hold
// still (see Source.resume), which stands in for the walk and the
// admission. When it fails after reading began (a cancel, a timeout), done
// holds the documents it finished, for a later take to keep (see
// finished), and p the plan they were read under.
func take(ctx context.Context, ws *workspace.Workspace, opt Options, fd feed, prev *Snapshot, changed map[string]bool, resumed *plan) (snap, done *Snapshot, p *plan, err error) {
	if err := ws.Check(); err != nil {
		return nil, nil, nil, err
	}
	m := MeterOf(ctx)
	m.start()
	if p = resumed; p == nil {
		started := time.Now()
		if p, err = makePlan(ctx, ws, fd, opt); err != nil {
			return nil, nil, nil, err
		}
		p.started = started
	}
	started := p.started
	m.known(len(p.jobs))
	keep, err := keepable(p, prev, changed)
	if err != nil {
		return nil, nil, nil, reason.Wrap(reason.ProducerUnavailable, "fingerprint failed", err)
	}
	if beforeReads != nil {
		beforeReads()
	}
	results, err := readDocuments(ctx, ws, p.jobs, p.cfg, p.rootName, opt, fd, keep)
	if err != nil {
		return nil, finished(p, results, prev, started), p, err
	}
	if afterReads != nil {
		afterReads()
	}
	// The policy must have held still while the workspace was read. When no
	// input it was decided from changed (the same stat proof a warm call
	// reuses a snapshot on), it did; otherwise admit again and compare.
	if racy(started, p.adm.Outside, nil, p.inputs) || !unchanged(ws, p.inputs, p.adm.Outside) {
		if err := p.admitAgain(ctx, ws, opt); err != nil {
			return nil, finished(p, results, prev, started), nil, err
		}
	}
	snap, err = assemble(ctx, ws, p, results, started, prev, nil)
	if err != nil {
		return nil, finished(p, results, prev, started), p, err
	}
	return snap, nil, nil, nil
}

// finished is what a take that failed had done, as a snapshot that is
// never served: only its documents, their preparations and stamps, and
// the type policy they were analysed under, which keepable needs to keep
// them. A document read now stands with the stamp it was read under; one
// of prev the take did not reach stands as prev had it, with prev's start
// (the older), so the racy rule stays as strict. Every document is proved
// again before it is kept: same type policy, no change seen, same stamp.
func finished(p *plan, results []docResult, prev *Snapshot, started time.Time) *Snapshot {
	if results == nil {
		return nil
	}
	done := &Snapshot{configFiles: p.configFiles, started: started}
	// This runs after the call was cut, on its time: sized once, and the
	// paths looked up only when prev has documents to add.
	n := len(results)
	var seen map[string]bool
	if prev != nil {
		n = max(n, len(prev.Docs)) // mostly the same documents
		seen = make(map[string]bool, len(results))
	}
	done.Docs = make([]*graph.Document, 0, n)
	infos := make([]workspace.Info, 0, n)
	prepared := make([]any, 0, n)
	for _, r := range results {
		if r.doc == nil {
			continue // not reached, or dropped: read again
		}
		if seen != nil {
			seen[r.doc.Path] = true
		}
		done.Docs = append(done.Docs, r.doc)
		prepared = append(prepared, r.prepared)
		infos = append(infos, r.info)
	}
	if prev != nil {
		for i, d := range prev.Docs {
			if seen[d.Path] {
				continue
			}
			done.Docs = append(done.Docs, d)
			prepared = append(prepared, prev.Prepared(i))
			infos = append(infos, prev.infos[i/chunk][i%chunk])
		}
		done.started = prev.started
	}
	done.infos, done.prepared = piecesOf(infos), piecesOf(prepared)
	return done
}

// keepable returns, for a path the walk found with a given stamp, the
// document of prev to keep in place of reading it again, or nil: only
// under the same type policy, only where no change was seen at the path or
// a folder above it, and only when its stamp is the very same and was
// already old when prev was taken (so a same-size rewrite within one clock
// tick cannot hide behind it).
func keepable(p *plan, prev *Snapshot, changed map[string]bool) (func(rel string, info workspace.Info) (*graph.Document, any), error) {
	if prev == nil {
		return nil, nil
	}
	a, err := (&Snapshot{configFiles: p.configFiles}).configDigest()
	if err != nil {
		return nil, err
	}
	if b, err := prev.configDigest(); err != nil || a != b {
		return nil, err
	}
	docs := make(map[string]int, len(prev.Docs))
	for i, d := range prev.Docs {
		docs[d.Path] = i
	}
	all := prev.allStamps()
	stamps := make(map[string]workspace.Info, len(all))
	for _, st := range all {
		stamps[st.rel] = st.info
	}
	stale := staleness(prev.started, func(yield func(workspace.Info) bool) {
		for _, st := range all {
			if !yield(st.info) {
				return
			}
		}
	})
	return func(rel string, info workspace.Info) (*graph.Document, any) {
		i, ok := docs[rel]
		if !ok {
			return nil, nil
		}
		for p := rel; p != ""; p, _ = split(p) {
			if changed[p] {
				return nil, nil
			}
		}
		old, ok := stamps[rel]
		if !ok || !workspace.Same(old, info) || stale(old) {
			return nil, nil
		}
		return prev.Docs[i], prev.Prepared(i)
	}, nil
}

func split(rel string) (dir, name string) {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i], rel[i+1:]
	}
	return "", rel
}
