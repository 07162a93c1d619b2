package snapshot

import (
	"context"
	"maps"
	"slices"
	"sort"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// readmitStage runs on the per-document path before the stat of the
// changed documents ("stat") and between that stat and their reads
// ("read"); only tests set it.
var readmitStage func(stage string)

// readmit is the per-document path after a change: when every path in
// changed is a document prev read (served, or dropped for what it held),
// and each is still a regular single-link file within the per-file limit
// on the very inode prev read, it reads just those again and builds the
// snapshot from prev's plan with only them replaced. The caller has proved
// that nothing else changed (the feed saw only content events, and the
// policy inputs no walk watches have their stamps), and proves after it
// that the policy held still through the reads. It returns nil, with no
// error, when it cannot vouch for the answer: the caller then takes the
// full path, which decides everything afresh.
func readmit(ctx context.Context, ws *workspace.Workspace, opt Options, fd feed, prev *Snapshot, changed map[string]bool) (*Snapshot, error) {
	p := prev.plan
	if p == nil || fd == nil || len(changed) == 0 {
		return nil, nil
	}
	if p.index == nil {
		p.index = make(map[string]int, len(p.jobs))
		for i, c := range p.jobs {
			p.index[c.rel] = i
		}
	}
	idx := make([]int, 0, len(changed))
	rels := make([]string, 0, len(changed))
	for rel := range changed {
		i, ok := p.index[rel]
		if !ok || !prev.results[i].info.Exists {
			// Not a document prev read: a policy file, an ignore file, a
			// folder, a file left out unread, or a read that failed.
			return nil, nil
		}
		idx = append(idx, i)
		rels = append(rels, rel)
	}
	if readmitStage != nil {
		readmitStage("stat")
	}
	infos, err := ws.StatMany(rels)
	if err != nil {
		return nil, nil
	}
	np := *p
	jobs := make([]candidate, len(idx))
	for k, i := range idx {
		now, old := infos[k], prev.results[i].info
		if !now.IsRegular() || now.Nlink != 1 || now.Size > ceilings.file || now.Dev != old.Dev || now.Ino != old.Ino {
			return nil, nil
		}
		np.total += now.Size - p.jobs[i].info.Size
		jobs[k] = candidate{p.jobs[i].rel, now}
	}
	if len(np.jobs) > ceilings.files || np.total > ceilings.bytes-np.configBytes {
		return nil, nil // the full path refuses
	}
	if readmitStage != nil {
		readmitStage("read")
	}
	read, err := readDocuments(ctx, ws, jobs, np.cfg, np.rootName, opt, fd, nil)
	if err != nil {
		return nil, err
	}
	if afterReads != nil {
		afterReads()
	}
	for k := range idx {
		if o := read[k].outcome; o == "changed" || o == "unavailable" {
			return nil, nil
		}
	}
	// The new snapshot takes prev's jobs and results over and changes
	// just the documents read again in place: a copy of every document's
	// state per edit is what made an edit cost the whole vault. Nothing
	// reads prev's plan or results any more: only readmit does, on the
	// Source's current snapshot, which prev stopped being when this call
	// began (Snapshot keeps only its public fields, Docs and stamps, for
	// keepable and finished, and assemble makes those anew).
	results := prev.results
	olds := make([]docResult, len(idx))
	for k, i := range idx {
		olds[k] = results[i]
		np.jobs[i] = jobs[k]
		results[i] = read[k]
	}
	prev.plan, prev.results = nil, nil
	if snap, ok, err := replaced(ctx, ws, &np, results, idx, olds, prev); ok || err != nil {
		return snap, err
	}
	// The graph is prev's with the documents read again in their places.
	graphOf := func(docs []*graph.Document) *graph.Graph {
		return replaceIn(prev.Graph, docs, idx, olds, results)
	}
	// Every stamp kept is as old as prev's oldest; the new ones are newer,
	// and the fingerprint is hashed on from prev's before the first change.
	return assemble(ctx, ws, &np, results, prev.started, prev, graphOf)
}

// replaceIn is the graph of docs, which are g's with the documents of
// olds replaced by those now in results at idx.
func replaceIn(g *graph.Graph, docs []*graph.Document, idx []int, olds, results []docResult) *graph.Graph {
	if g == nil {
		return graph.Build(docs)
	}
	old, by := make([]*graph.Document, len(idx)), make([]*graph.Document, len(idx))
	for k, i := range idx {
		old[k], by[k] = olds[k].doc, results[i].doc
	}
	return g.Replace(docs, old, by)
}

// replaced is the snapshot after readmit read the documents of jobs idx
// again (results[idx[k]], where prev had olds[k]), when prev served each
// and each is served again: prev's documents, stamps, omissions and
// fingerprint encoding with just those replaced, so that an edit visits
// no other document. ok is false when it cannot say (a document read
// again is left out now, a read failed, prev was not complete in those
// ways, or lists what it hid): assemble builds the snapshot whole then.
func replaced(ctx context.Context, ws *workspace.Workspace, p *plan, results []docResult, idx []int, olds []docResult, prev *Snapshot) (*Snapshot, bool, error) {
	if p.listing || p.unstable || len(prev.Unreadable) > 0 || prev.hashed == nil {
		return nil, false, nil
	}
	snap := &Snapshot{Config: p.cfg, Admission: p.adm, configFiles: p.configFiles, plan: p, results: results,
		UnreadableFolders: p.unreadable, stamps: prev.stamps, rows: prev.rows, edgeDocs: prev.edgeDocs, whole: prev.whole}
	snap.Docs, snap.infos, snap.prepared = slices.Clone(prev.Docs), slices.Clone(prev.infos), slices.Clone(prev.prepared)
	at, by := make([]int, len(idx)), make([][]byte, len(idx))
	news := make([]stamp, len(idx))
	copied, edges := map[int]bool{}, 0
	for k, i := range idx {
		old, res := olds[k], &results[i]
		if old.outcome != "" || old.doc == nil || res.outcome != "" || res.doc == nil {
			return nil, false, nil
		}
		// Docs are in UTF-16 path order, one per path.
		pos := sort.Search(len(prev.Docs), func(j int) bool { return guard.Compare(prev.Docs[j].Path, old.doc.Path) >= 0 })
		if pos == len(prev.Docs) || prev.Docs[pos] != old.doc || res.doc.Path != old.doc.Path {
			return nil, false, nil
		}
		c := pos / chunk
		if !copied[c] {
			snap.infos[c], snap.prepared[c], copied[c] = slices.Clone(snap.infos[c]), slices.Clone(snap.prepared[c]), true
		}
		snap.Docs[pos], snap.infos[c][pos%chunk], snap.prepared[c][pos%chunk] = res.doc, res.info, res.prepared
		news[k] = stamp{res.doc.Path, res.info}
		var err error
		if res.json, err = docJSON(res.doc); err != nil {
			return nil, true, reason.Wrap(reason.ProducerUnavailable, "fingerprint failed", err)
		}
		at[k], by[k] = pos, res.json
		edges += res.edgeOmitted - old.edgeOmitted
		snap.edgeDocs += b2i(res.edgeOmitted > 0) - b2i(old.edgeOmitted > 0)
	}
	if edges != 0 {
		key := [2]string{"edge", "edge_limit_or_unsafe"}
		snap.rows = maps.Clone(prev.rows)
		if snap.rows[key] += edges; snap.rows[key] == 0 {
			delete(snap.rows, key)
		}
	}
	snap.Graph = replaceIn(prev.Graph, snap.Docs, idx, olds, results)
	snap.Complete = snap.whole && snap.edgeDocs == 0
	snap.Omissions = Rows(snap.rows)
	// What was read again was written since prev was taken, so this is
	// almost always settled by the first list.
	snap.racy = racy(prev.started, p.adm.Outside, snap.infos, news, snap.stamps)
	snap, err := finish(ctx, ws, snap, p, prev.started, prev.hashed.list.with(at, by), prev)
	return snap, true, err
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
