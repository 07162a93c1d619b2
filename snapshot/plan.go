package snapshot

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// plan is what a take decided before it read a document: the type policy,
// the admission, the documents to read, and what the walk and the admission
// left out. A snapshot keeps it, so that a later call whose only changes
// are to documents it read can read those again alone (see readmit), under
// the very admission they were read under.
type plan struct {
	cfg         *policy.Config
	configFiles []configFile
	adm         *policy.Admission
	thin        bool
	rootName    string
	jobs        []candidate       // admitted documents to read, in walk order
	order       []int             // jobs' indexes in UTF-16 path order
	index       map[string]int    // a job's path to its index, made on first use
	rows        map[[2]string]int // omissions counted before the reads
	complete    bool
	unstable    bool
	leftOut     []stamp // admitted documents left out unread
	inputs      []stamp // the policy inputs, walked folders and ignore files
	fixed       []stamp // the policy inputs no walk watches
	total       int64   // bytes the jobs hold
	configBytes int64   // bytes the policy files hold, out of the same budget
	unreadable  []string
	listing     bool
	hidden      []Hidden // what the walk and the admission left out, when listing
	// names and popts are what was admitted, for admitAgain; started is
	// when the policy inputs were stamped, which a stamp taken that recent
	// cannot prove.
	names   []string
	popts   policy.Options
	started time.Time
}

// admitAgain admits the plan's names afresh and fails unless the answer is
// the same: the proof that the policy held still, when a stat cannot give
// it.
func (p *plan) admitAgain(ctx context.Context, ws *workspace.Workspace, opt Options) error {
	var fresh *policy.Session
	var err error
	if opt.Planned != nil {
		fresh, err = policy.NewPlannedSession(ctx, ws, opt.Planned.Cocoindex)
	} else {
		fresh, err = policy.NewSession(ctx, ws)
	}
	if err != nil {
		return err
	}
	a, err := fresh.Admit(ctx, ws, p.names, p.popts)
	if err != nil {
		return err
	}
	if a.Fingerprint != p.adm.Fingerprint {
		return policyUnavailable("the privacy policy changed while the workspace was read")
	}
	return nil
}

// makePlan reads the policy files, walks the tree and admits what it found.
func makePlan(ctx context.Context, ws *workspace.Workspace, fd feed, opt Options) (p *plan, err error) {
	col := &collector{rows: map[[2]string]int{}, complete: true, listing: opt.ListHidden}
	root := ws.Root()
	newRules := func() (*policy.Session, error) { return policy.NewSession(ctx, ws) }
	thin := true
	var cfgCands []candidate
	if pl := opt.Planned; pl != nil {
		newRules = func() (*policy.Session, error) { return policy.NewPlannedSession(ctx, ws, pl.Cocoindex) }
	} else if thin, cfgCands, err = policyFiles(ws, col); err != nil {
		return nil, err
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
	rules, err := newRules()
	if err != nil {
		return nil, err
	}
	// The type policy comes first, so its excludes prune the walk; its
	// files pass the same rules as every other path, here and in the
	// admission below.
	files := &Snapshot{}
	cfg, budget := (*policy.Config)(nil), ceilings.bytes
	if opt.Planned != nil {
		cfg = opt.Planned.Config
	} else if cfg, budget, err = files.loadConfig(ctx, ws, rules, cfgCands, thin, col); err != nil {
		return nil, err
	}
	en, err := enumerate(ctx, ws, fd, rules, cfg.Exclude, thin, col)
	if err != nil {
		return nil, err
	}
	p = &plan{cfg: cfg, configFiles: files.configFiles, thin: thin, rootName: filepath.Base(root),
		fixed: inputs, configBytes: ceilings.bytes - budget}
	p.inputs = append(inputs[:len(inputs):len(inputs)], en.stamps...)
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
	p.adm = adm
	for _, c := range p.configFiles {
		if !adm.Admits(c.rel) {
			return nil, policyUnavailable("the privacy policy changed while the workspace was read")
		}
	}
	for _, o := range adm.Omissions {
		col.add(o.Kind, o.Reason, o.Count)
	}
	ignored, sensitive := adm.Excluded()
	for _, rel := range ignored {
		col.list("privacy_excluded", "git_ignored", rel, "", 0)
	}
	for _, rel := range sensitive {
		col.list("privacy_excluded", "sensitive_name", rel, "", 0)
	}
	p.jobs = make([]candidate, 0, len(en.markdown))
	for i, c := range en.markdown {
		if i%1024 == 1023 {
			if err := cancelled(ctx); err != nil {
				return nil, err
			}
		}
		if !adm.Admits(c.rel) {
			continue
		}
		if policy.IsExcluded(c.rel, cfg.Exclude) {
			col.hide("document", "config_excluded", c.rel, "")
			continue
		}
		if c.info.Nlink != 1 || c.info.Size > ceilings.file {
			// Left out unread; stamped and watched, so dropping the other
			// link or a shorter version shows.
			if c.info.Nlink != 1 {
				col.hide("document", "hard_link_or_nonregular", c.rel, "")
			} else {
				col.hide("document", "too_large", c.rel, fmt.Sprintf("%d bytes", c.info.Size))
				col.complete = false
			}
			p.leftOut = append(p.leftOut, stamp(c))
			if fd != nil {
				fd.pathWatch(ws, c.rel, c.info)
			}
			continue
		}
		p.total += c.info.Size
		p.jobs = append(p.jobs, c)
	}
	if len(p.jobs) > ceilings.files {
		return nil, tooManyFiles(len(p.jobs), thin)
	}
	if p.total > budget {
		return nil, tooManyBytes(p.total+p.configBytes, thin)
	}
	p.order = make([]int, len(p.jobs))
	for i := range p.order {
		p.order[i] = i
	}
	sort.Slice(p.order, func(a, b int) bool { return guard.Less(p.jobs[p.order[a]].rel, p.jobs[p.order[b]].rel) })
	p.rows, p.complete, p.unstable = col.rows, col.complete, col.unstable
	p.unreadable, p.listing, p.hidden = en.unreadable, opt.ListHidden, col.hidden
	p.names, p.popts = names, popts
	return p, nil
}

// policyFiles inspects the workspace's policy files: whether the thin
// config exists, and the ones to read.
func policyFiles(ws *workspace.Workspace, col *collector) (thin bool, cands []candidate, err error) {
	thinInfo, err := ws.Lstat(policy.ThinConfigPath)
	if err != nil {
		return false, nil, policyUnavailable("the workspace policy file cannot be inspected")
	}
	overlayInfo, err := ws.Lstat(policy.OverlayPath)
	if err != nil {
		return false, nil, policyUnavailable("the root tropo.toml cannot be inspected")
	}
	thin = thinInfo.Exists
	for _, c := range []candidate{{policy.ThinConfigPath, thinInfo}, {policy.OverlayPath, overlayInfo}} {
		if !c.info.Exists {
			continue
		}
		if !c.info.IsRegular() || c.info.Nlink != 1 {
			if thin {
				return false, nil, policyUnavailable("a workspace policy file is a link, hard-linked or not a regular file")
			}
			col.hide("config", "unavailable", c.rel, "a link, hard-linked or not a regular file")
			col.complete = false
			continue
		}
		if c.info.Size > limits.MaxFileBytes {
			return false, nil, policyFileTooLarge(c.info.Size)
		}
		cands = append(cands, c)
	}
	return thin, cands, nil
}

// assemble builds the snapshot from a plan and what reading its jobs gave
// (in the jobs' order). started is when the oldest of the stamps it keeps
// was taken: a stamp that recent proves nothing.
func assemble(ctx context.Context, ws *workspace.Workspace, p *plan, results []docResult, started time.Time, prev *Snapshot, graphOf func([]*graph.Document) *graph.Graph) (*Snapshot, error) {
	if err := cancelled(ctx); err != nil {
		return nil, err
	}
	if assembling != nil {
		assembling()
	}
	col := &collector{rows: maps.Clone(p.rows), complete: p.complete, unstable: p.unstable,
		listing: p.listing, hidden: slices.Clone(p.hidden)}
	snap := &Snapshot{Config: p.cfg, Admission: p.adm, configFiles: p.configFiles, plan: p, results: results,
		UnreadableFolders: p.unreadable}
	snap.stamps = append(slices.Clip(p.leftOut), p.inputs...)
	// Sized once: appends that grow these at every size are a good part
	// of what an edit costs at 50,000 notes.
	docs := make([][]byte, 0, len(p.order))
	infos := make([]workspace.Info, 0, len(p.order))
	snap.Docs = make([]*graph.Document, 0, len(p.order))
	prepared := make([]any, 0, len(p.order))
	for n, i := range p.order {
		if err := poll(ctx, n); err != nil {
			return nil, err
		}
		res := results[i]
		switch res.outcome {
		case "":
		case "changed", "unavailable":
			// A read that failed says nothing stable; never reuse this snapshot.
			col.hide("document", res.outcome, p.jobs[i].rel, "")
			col.complete, col.unstable = false, true
			snap.Unreadable = append(snap.Unreadable, p.jobs[i].rel)
			continue
		default:
			// Dropped for its content: the content may change back.
			col.hideAt("document", res.outcome, p.jobs[i].rel, res.detail, res.line)
			snap.stamps = append(snap.stamps, stamp{p.jobs[i].rel, res.info})
			continue
		}
		infos = append(infos, res.info)
		if res.edgeOmitted > 0 {
			col.add("edge", "edge_limit_or_unsafe", res.edgeOmitted)
			snap.edgeDocs++
		}
		if res.json == nil {
			var err error
			if res.json, err = docJSON(res.doc); err != nil {
				return nil, reason.Wrap(reason.ProducerUnavailable, "fingerprint failed", err)
			}
			results[i].json = res.json
		}
		snap.Docs = append(snap.Docs, res.doc)
		prepared = append(prepared, res.prepared)
		docs = append(docs, res.json)
	}
	snap.infos, snap.prepared = piecesOf(infos), piecesOf(prepared)
	if graphOf == nil {
		graphOf = graph.Build
	}
	snap.Graph = graphOf(snap.Docs)
	if err := cancelled(ctx); err != nil {
		return nil, err
	}
	snap.rows, snap.whole = col.rows, col.complete
	snap.Complete = snap.whole && snap.edgeDocs == 0
	snap.Omissions = Rows(col.rows)
	if p.listing {
		snap.Hidden = col.hidden
		sort.SliceStable(snap.Hidden, func(i, j int) bool { return guard.Less(snap.Hidden[i].Path, snap.Hidden[j].Path) })
	}
	snap.racy = col.unstable || racy(started, p.adm.Outside, snap.infos, snap.stamps)
	return finish(ctx, ws, snap, p, started, entriesOf(docs), prev)
}

// assembling runs when assemble visits every document, and fingerprinting
// when finish hashes them; only tests set them.
var assembling, fingerprinting func()

// finish completes snap, whose documents, stamps, graph and omissions are
// set, from its plan: the stamps it is proved fresh by, and its
// fingerprint, over list, hashed on from prev's where they agree.
func finish(ctx context.Context, ws *workspace.Workspace, snap *Snapshot, p *plan, started time.Time, list *entries, prev *Snapshot) (*Snapshot, error) {
	snap.outside = p.adm.Outside // the session's: its folder answers came from them too
	snap.unwatched, snap.started = p.fixed, started
	snap.racyUnwatched = p.unstable || len(snap.Unreadable) > 0 || racy(started, snap.outside, nil, p.fixed)
	if err := cancelled(ctx); err != nil {
		return nil, err
	}
	if fingerprinting != nil {
		fingerprinting()
	}
	var err error
	if snap.Fingerprint, snap.hashed, err = snap.fingerprint(ctx, list, prev); err != nil {
		var re *reason.Error
		if errors.As(err, &re) {
			return nil, err // cancelled
		}
		return nil, reason.Wrap(reason.ProducerUnavailable, "fingerprint failed", err)
	}
	if err := ws.Check(); err != nil {
		return nil, err
	}
	return snap, nil
}
