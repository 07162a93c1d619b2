package snapshot

import (
	"context"
	"maps"
	"path/filepath"
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
}

// makePlan reads the policy files, walks the tree and admits what it found.
// again admits the same names afresh and fails unless the answer is the
// same: the proof that the policy held still, when a stat cannot give it.
func makePlan(ctx context.Context, ws *workspace.Workspace, fd feed) (p *plan, again func() error, err error) {
	col := &collector{rows: map[[2]string]int{}, complete: true}
	root := ws.Root()
	thinInfo, err := ws.Lstat(policy.ThinConfigPath)
	if err != nil {
		return nil, nil, policyUnavailable("the workspace policy file cannot be inspected")
	}
	overlayInfo, err := ws.Lstat(policy.OverlayPath)
	if err != nil {
		return nil, nil, policyUnavailable("the root tropo.toml cannot be inspected")
	}
	thin := thinInfo.Exists
	var cfgCands []candidate
	for _, c := range []candidate{{policy.ThinConfigPath, thinInfo}, {policy.OverlayPath, overlayInfo}} {
		if !c.info.Exists {
			continue
		}
		if !c.info.IsRegular() || c.info.Nlink != 1 {
			if thin {
				return nil, nil, policyUnavailable("a workspace policy file is a link, hard-linked or not a regular file")
			}
			col.add("config", "unavailable", 1)
			col.complete = false
			continue
		}
		if c.info.Size > limits.MaxFileBytes {
			return nil, nil, policyFileTooLarge(c.info.Size)
		}
		cfgCands = append(cfgCands, c)
	}
	// The policy inputs are stamped before Git or the thin matcher reads
	// them, so a change at any later moment shows in a stat after the reads.
	infos, err := ws.StatMany(policy.Inputs)
	if err != nil {
		return nil, nil, err
	}
	inputs := make([]stamp, 0, len(policy.Inputs))
	for i, rel := range policy.Inputs {
		inputs = append(inputs, stamp{rel, infos[i]})
	}
	rules, err := policy.NewSession(ctx, ws)
	if err != nil {
		return nil, nil, err
	}
	// The type policy comes first, so its excludes prune the walk; its
	// files pass the same rules as every other path, here and in the
	// admission below.
	files := &Snapshot{}
	cfg, budget, err := files.loadConfig(ctx, ws, rules, cfgCands, thin, col)
	if err != nil {
		return nil, nil, err
	}
	en, err := enumerate(ctx, ws, fd, rules, cfg.Exclude, thin, col)
	if err != nil {
		return nil, nil, err
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
		return nil, nil, err
	}
	p.adm = adm
	for _, c := range p.configFiles {
		if !adm.Admits(c.rel) {
			return nil, nil, policyUnavailable("the privacy policy changed while the workspace was read")
		}
	}
	for _, o := range adm.Omissions {
		col.add(o.Kind, o.Reason, o.Count)
	}
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
		return nil, nil, tooManyFiles(len(p.jobs), thin)
	}
	if p.total > budget {
		return nil, nil, tooManyBytes(p.total+p.configBytes, thin)
	}
	p.order = make([]int, len(p.jobs))
	for i := range p.order {
		p.order[i] = i
	}
	sort.Slice(p.order, func(a, b int) bool { return guard.Less(p.jobs[p.order[a]].rel, p.jobs[p.order[b]].rel) })
	p.rows, p.complete, p.unstable = col.rows, col.complete, col.unstable
	again = func() error {
		a, err := policy.Admit(ctx, ws, names, popts)
		if err != nil {
			return err
		}
		if a.Fingerprint != adm.Fingerprint {
			return policyUnavailable("the privacy policy changed while the workspace was read")
		}
		return nil
	}
	return p, again, nil
}

// assemble builds the snapshot from a plan and what reading its jobs gave
// (in the jobs' order). started is when the oldest of the stamps it keeps
// was taken: a stamp that recent proves nothing.
func assemble(ws *workspace.Workspace, p *plan, results []docResult, started time.Time) (*Snapshot, error) {
	col := &collector{rows: maps.Clone(p.rows), complete: p.complete, unstable: p.unstable}
	snap := &Snapshot{Config: p.cfg, Admission: p.adm, configFiles: p.configFiles, plan: p, results: results}
	snap.stamps = make([]stamp, 0, len(p.leftOut)+len(results)+len(p.inputs))
	snap.stamps = append(snap.stamps, p.leftOut...)
	for _, i := range p.order {
		res := results[i]
		switch res.outcome {
		case "":
		case "changed", "unavailable":
			// A read that failed says nothing stable; never reuse this snapshot.
			col.add("document", res.outcome, 1)
			col.complete, col.unstable = false, true
			snap.Unreadable = append(snap.Unreadable, p.jobs[i].rel)
			continue
		default:
			// Dropped for its content: the content may change back.
			col.add("document", res.outcome, 1)
			snap.stamps = append(snap.stamps, stamp{p.jobs[i].rel, res.info})
			continue
		}
		snap.stamps = append(snap.stamps, stamp{p.jobs[i].rel, res.info})
		if res.doc.EdgeOmitted > 0 {
			col.add("edge", "edge_limit_or_unsafe", res.doc.EdgeOmitted)
			col.complete = false
		}
		snap.Docs = append(snap.Docs, res.doc)
		snap.Prepared = append(snap.Prepared, res.prepared)
	}
	snap.Graph = graph.Build(snap.Docs)
	snap.Complete = col.complete
	snap.Omissions = Rows(col.rows)
	snap.stamps = append(snap.stamps, p.inputs...)
	snap.outside = p.adm.Outside // the session's: its folder answers came from them too
	snap.racy = col.unstable || racy(snap.stamps, snap.outside, started)
	snap.unwatched, snap.started = p.fixed, started
	snap.racyUnwatched = col.unstable || racy(p.fixed, snap.outside, started)
	var err error
	if snap.Fingerprint, err = snap.fingerprint(); err != nil {
		return nil, reason.Wrap(reason.ProducerUnavailable, "fingerprint failed", err)
	}
	if err := ws.Check(); err != nil {
		return nil, err
	}
	return snap, nil
}
