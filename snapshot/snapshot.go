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
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Snapshot is the admitted, analysed documents of a workspace at one moment.
// It is never changed after Take returns it.
type Snapshot struct {
	Config *policy.Config
	Docs   []*graph.Document // UTF-16 path order
	// Prepared holds, for each of Docs, what Options.Prepare returned for
	// it (nil without a Prepare).
	Prepared    []any
	Graph       *graph.Graph
	Complete    bool
	Omissions   []Omission // aggregated rows
	Fingerprint string
	Admission   *policy.Admission
	// Unreadable are the admitted documents whose read failed (changed
	// while read, or unavailable), in path order: names the policy let
	// through, so a message may show them.
	Unreadable  []string
	configFiles []configFile
	stamps      []stamp
	racy        bool // some input changed too close to the snapshot to trust its stamps
	outside     []policy.Outside
	// unwatched are the policy inputs no walk watches (the fixed ones: the
	// policy files' and .git's entries); racyUnwatched is racy over them
	// and the outside inputs, or a read failed.
	unwatched     []stamp
	racyUnwatched bool
	started       time.Time
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
}

// afterReads runs between the reads and the proof that the policy held;
// only tests set it.
var afterReads func()

type configFile struct {
	rel    string
	data   []byte
	sha256 string
}

// Take builds a fresh snapshot: policy files, a walk of the tree, privacy
// admission, the reads, and admission again to prove the policy held still.
func Take(ctx context.Context, ws *workspace.Workspace, opt Options) (*Snapshot, error) {
	return take(ctx, ws, opt, nil, nil, nil)
}

// take is Take with a change feed to set watches on (or nil), and the
// previous snapshot whose documents may be kept where nothing changed (or
// nil): changed are the paths a feed saw change (nil when none can say).
func take(ctx context.Context, ws *workspace.Workspace, opt Options, fd feed, prev *Snapshot, changed map[string]bool) (*Snapshot, error) {
	if err := ws.Check(); err != nil {
		return nil, err
	}
	started := time.Now()
	col := &collector{rows: map[[2]string]int{}, complete: true}
	root := ws.Root()
	thinInfo, err := ws.Lstat(policy.ThinConfigPath)
	if err != nil {
		return nil, policyUnavailable("the workspace policy file cannot be inspected")
	}
	overlayInfo, err := ws.Lstat(policy.OverlayPath)
	if err != nil {
		return nil, policyUnavailable("the root tropo.toml cannot be inspected")
	}
	thin := thinInfo.Exists
	var cfgCands []candidate
	for _, c := range []candidate{{policy.ThinConfigPath, thinInfo}, {policy.OverlayPath, overlayInfo}} {
		if !c.info.Exists {
			continue
		}
		if !c.info.IsRegular() || c.info.Nlink != 1 {
			if thin {
				return nil, policyUnavailable("a workspace policy file is a link, hard-linked or not a regular file")
			}
			col.add("config", "unavailable", 1)
			col.complete = false
			continue
		}
		if c.info.Size > limits.MaxFileBytes {
			return nil, policyFileTooLarge(c.info.Size)
		}
		cfgCands = append(cfgCands, c)
	}
	// The policy inputs are stamped before Git or the thin matcher reads
	// them, so a change at any later moment shows in a stat after the reads.
	infos, err := ws.StatMany(policy.Inputs)
	if err != nil {
		return nil, err
	}
	inputs := make([]stamp, 0, len(policy.Inputs))
	for i, rel := range policy.Inputs {
		inputs = append(inputs, stamp{rel, infos[i]})
	}
	rules, err := policy.NewSession(ctx, ws)
	if err != nil {
		return nil, err
	}
	// The type policy comes first, so its excludes prune the walk; its
	// files pass the same rules as every other path, here and in the
	// admission below.
	snap := &Snapshot{}
	cfg, budget, err := snap.loadConfig(ctx, ws, rules, cfgCands, thin, col)
	if err != nil {
		return nil, err
	}
	snap.Config = cfg
	en, err := enumerate(ctx, ws, fd, rules, cfg.Exclude, thin, col)
	if err != nil {
		return nil, err
	}
	fixed := inputs
	inputs = append(inputs[:len(inputs):len(inputs)], en.stamps...)
	names := make([]string, 0, len(cfgCands)+len(en.markdown))
	for _, c := range cfgCands {
		names = append(names, c.rel)
	}
	for _, c := range en.markdown {
		names = append(names, c.rel)
	}
	// Every name was just listed (or, for the policy files, stat'd) as a
	// regular file; a hard-linked one is never read, and every read
	// re-checks its file's identity.
	popts := policy.Options{IgnoreFiles: en.ignoreFiles, Listed: true}
	adm, err := rules.Admit(ctx, ws, names, popts)
	if err != nil {
		return nil, err
	}
	snap.Admission = adm
	for _, c := range snap.configFiles {
		if !adm.Admits(c.rel) {
			return nil, policyUnavailable("the privacy policy changed while the workspace was read")
		}
	}
	for _, o := range adm.Omissions {
		col.add(o.Kind, o.Reason, o.Count)
	}
	rootName := filepath.Base(root)
	var jobs []candidate
	var total int64
	for _, c := range en.markdown {
		if !adm.Admits(c.rel) {
			continue
		}
		if policy.IsExcluded(c.rel, cfg.Exclude) {
			col.add("document", "config_excluded", 1)
			continue
		}
		if c.info.Nlink != 1 || c.info.Size > ceilings.file {
			// Left out unread; stamped and watched, so dropping the other
			// link or a shorter version shows.
			if c.info.Nlink != 1 {
				col.add("document", "hard_link_or_nonregular", 1)
			} else {
				col.add("document", "too_large", 1)
				col.complete = false
			}
			snap.stamps = append(snap.stamps, stamp(c))
			if fd != nil {
				fd.pathWatch(ws, c.rel, c.info)
			}
			continue
		}
		total += c.info.Size
		jobs = append(jobs, c)
	}
	if len(jobs) > ceilings.files {
		return nil, tooManyFiles(len(jobs), thin)
	}
	if total > budget {
		return nil, tooManyBytes(total+ceilings.bytes-budget, thin)
	}
	keep, err := snap.keepable(prev, changed)
	if err != nil {
		return nil, reason.Wrap(reason.ProducerUnavailable, "fingerprint failed", err)
	}
	results, err := readDocuments(ctx, ws, jobs, cfg, rootName, opt, fd, keep)
	if err != nil {
		return nil, err
	}
	if afterReads != nil {
		afterReads()
	}
	for i, res := range results {
		switch res.outcome {
		case "":
		case "changed", "unavailable":
			// A read that failed says nothing stable; never reuse this snapshot.
			col.add("document", res.outcome, 1)
			col.complete, col.unstable = false, true
			snap.Unreadable = append(snap.Unreadable, jobs[i].rel)
			continue
		default:
			// Dropped for its content: the content may change back.
			col.add("document", res.outcome, 1)
			snap.stamps = append(snap.stamps, stamp{jobs[i].rel, res.info})
			continue
		}
		snap.stamps = append(snap.stamps, stamp{jobs[i].rel, res.info})
		if res.doc.EdgeOmitted > 0 {
			col.add("edge", "edge_limit_or_unsafe", res.doc.EdgeOmitted)
			col.complete = false
		}
		snap.Docs = append(snap.Docs, res.doc)
		snap.Prepared = append(snap.Prepared, res.prepared)
	}
	// The policy must have held still while the workspace was read. When no
	// input it was decided from changed (the same stat proof a warm call
	// reuses a snapshot on), it did; otherwise admit again and compare.
	if racy(inputs, adm.Outside, started) || !unchanged(ws, inputs, adm.Outside) {
		again, err := policy.Admit(ctx, ws, names, popts)
		if err != nil {
			return nil, err
		}
		if again.Fingerprint != adm.Fingerprint {
			return nil, policyUnavailable("the privacy policy changed while the workspace was read")
		}
	}
	snap.sortDocs()
	snap.Graph = graph.Build(snap.Docs)
	snap.Complete = col.complete
	snap.Omissions = Rows(col.rows)
	snap.stamps = append(snap.stamps, inputs...)
	snap.outside = adm.Outside // the session's: its folder answers came from them too
	snap.racy = col.unstable || racy(snap.stamps, snap.outside, started)
	snap.unwatched, snap.started = fixed, started
	snap.racyUnwatched = col.unstable || racy(fixed, snap.outside, started)
	if snap.Fingerprint, err = snap.fingerprint(); err != nil {
		return nil, reason.Wrap(reason.ProducerUnavailable, "fingerprint failed", err)
	}
	if err := ws.Check(); err != nil {
		return nil, err
	}
	return snap, nil
}

// keepable returns, for a path the walk found with a given stamp, the
// document of prev to keep in place of reading it again, or nil: only
// under the same type policy, only where no change was seen at the path or
// a folder above it, and only when its stamp is the very same and was
// already old when prev was taken (so a same-size rewrite within one clock
// tick cannot hide behind it).
func (s *Snapshot) keepable(prev *Snapshot, changed map[string]bool) (func(rel string, info workspace.Info) (*graph.Document, any), error) {
	if prev == nil {
		return nil, nil
	}
	a, err := s.configDigest()
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
	stamps := make(map[string]workspace.Info, len(prev.stamps))
	for _, st := range prev.stamps {
		stamps[st.rel] = st.info
	}
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
		if !ok || !workspace.Same(old, info) || racy([]stamp{{rel, old}}, nil, prev.started) {
			return nil, nil
		}
		return prev.Docs[i], prev.Prepared[i]
	}, nil
}

func split(rel string) (dir, name string) {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i], rel[i+1:]
	}
	return "", rel
}

// sortDocs puts Docs, and Prepared with them, in UTF-16 path order.
func (s *Snapshot) sortDocs() {
	sort.Stable(byPath{s})
}

type byPath struct{ s *Snapshot }

func (b byPath) Len() int           { return len(b.s.Docs) }
func (b byPath) Less(i, j int) bool { return guard.Less(b.s.Docs[i].Path, b.s.Docs[j].Path) }
func (b byPath) Swap(i, j int) {
	b.s.Docs[i], b.s.Docs[j] = b.s.Docs[j], b.s.Docs[i]
	b.s.Prepared[i], b.s.Prepared[j] = b.s.Prepared[j], b.s.Prepared[i]
}

func (s *Snapshot) fingerprint() (string, error) {
	cd, err := s.configDigest()
	if err != nil {
		return "", err
	}
	docs := make([]map[string]string, len(s.Docs))
	for i, d := range s.Docs {
		docs[i] = map[string]string{"path": d.Path, "content": d.Digest}
	}
	om := make([]any, len(s.Omissions))
	for i, o := range s.Omissions {
		om[i] = map[string]any{"kind": o.Kind, "reason": o.Reason, "count": o.Count}
	}
	b, err := canon.Compact(map[string]any{
		"schema": "vivary.tropo-document-snapshot/v0", "config": cd, "documents": docs,
		"privacy": []string{s.Admission.Fingerprint}, "omissions": om, "complete": s.Complete,
	})
	if err != nil {
		return "", err
	}
	return canon.Digest(b), nil
}
