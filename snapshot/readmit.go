package snapshot

import (
	"context"

	"github.com/vivary-dev/vivary-go/graph"
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
	olds := make([]*graph.Document, len(idx))
	for k, i := range idx {
		olds[k] = results[i].doc
		np.jobs[i] = jobs[k]
		results[i] = read[k]
	}
	prev.plan, prev.results = nil, nil
	// The graph is prev's with the documents read again in their places.
	graphOf := func(docs []*graph.Document) *graph.Graph {
		var by []*graph.Document
		for _, i := range idx {
			by = append(by, results[i].doc)
		}
		if prev.Graph == nil {
			return graph.Build(docs)
		}
		return prev.Graph.Replace(docs, olds, by)
	}
	// Every stamp kept is as old as prev's oldest; the new ones are newer,
	// and the fingerprint is hashed on from prev's before the first change.
	return assemble(ctx, ws, &np, results, prev.started, prev, graphOf)
}
