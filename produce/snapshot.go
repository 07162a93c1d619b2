// Package produce owns the four read producers (check, query, find, capsule)
// and the document snapshot they share. A producer takes a context, a bound
// workspace and typed arguments and returns a plain value that marshals to
// its published JSON; it writes nothing anywhere, reads bytes only after the
// privacy policy admitted their path, and answers whole or with a typed
// reason (never a silently shortened result).
package produce

import (
	"context"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Omission is one counted row of what a result left out.
type Omission = policy.Omission

// Snapshot is the admitted, analysed documents of a workspace at one moment.
type Snapshot struct {
	Config      *policy.Config
	Docs        []*graph.Document // UTF-16 path order
	Graph       *graph.Graph
	Complete    bool
	Omissions   []Omission // aggregated rows
	Fingerprint string
	Admission   *policy.Admission
	configFiles []configFile
	stamps      []stamp
	racy        bool // some input changed too close to the snapshot to trust its stamps
	outside     []policy.Outside
}

// afterReads runs between the reads and the proof that the policy held;
// only tests set it.
var afterReads func()

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

type configFile struct {
	rel    string
	data   []byte
	sha256 string
}

// stamp is what revalidation compares: the identity of every admitted input.
type stamp struct {
	rel  string
	info workspace.Info
}

type candidate struct {
	rel  string
	info workspace.Info
}

type collector struct {
	rows     map[[2]string]int
	complete bool
	unstable bool // a read or listing failed: the snapshot must not be reused
}

func (c *collector) add(kind, why string, n int) {
	if n > 0 {
		c.rows[[2]string{kind, why}] += n
	}
}

// Rows aggregates, orders and folds omission rows.
func rows(m map[[2]string]int) []Omission {
	out := make([]Omission, 0, len(m))
	for k, n := range m {
		out = append(out, Omission{Kind: k[0], Reason: k[1], Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return guard.Less(out[i].Kind, out[j].Kind)
		}
		return guard.Less(out[i].Reason, out[j].Reason)
	})
	if len(out) > limits.MaxOmissionRows {
		rest := 0
		for _, o := range out[limits.MaxOmissionRows-1:] {
			rest += o.Count
		}
		out = append(out[:limits.MaxOmissionRows-1], Omission{Kind: "snapshot", Reason: "omissions_truncated", Count: rest})
	}
	return out
}

func cancelled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return reason.Wrap(reason.ProducerUnavailable, "the call was cancelled", err)
	}
	return nil
}

func workLimit(msg string) error { return reason.New(reason.WorkLimitExceeded, msg) }

func policyUnavailable(msg string) error { return reason.New(reason.PrivacyPolicyUnavailable, msg) }

// enumeration is what one walk of the tree found.
type enumeration struct {
	markdown    []candidate
	ignoreFiles []string // every entry named .gitignore, of any type
	stamps      []stamp  // directories walked and ignore files seen, for revalidation
}

func isMarkdown(name string) bool {
	l := strings.ToLower(name)
	return strings.HasSuffix(l, ".md") || strings.HasSuffix(l, ".markdown")
}

// enumerate walks the tree depth-first in UTF-16 name order, never through a link.
func enumerate(ctx context.Context, ws *workspace.Workspace, col *collector) (*enumeration, error) {
	en := &enumeration{}
	if root, err := ws.Lstat("."); err == nil {
		en.stamps = append(en.stamps, stamp{".", root})
	}
	scanned := 0
	var walk func(dir string) error
	walk = func(dir string) error {
		if err := cancelled(ctx); err != nil {
			return err
		}
		entries, err := ws.ReadDir(dir)
		if err != nil {
			col.add("filesystem", "directory_unavailable", 1)
			col.complete, col.unstable = false, true
			return nil
		}
		sort.Slice(entries, func(i, j int) bool { return guard.Less(entries[i].Name, entries[j].Name) })
		for _, e := range entries {
			scanned++
			if scanned > limits.MaxScanEntries {
				return workLimit("the workspace has more entries than one call may scan")
			}
			rel := e.Name
			if dir != "" {
				rel = dir + "/" + e.Name
			}
			if !guard.SafeRelPath(rel, 4096) {
				col.add("filesystem", "unsafe_path", 1)
				continue
			}
			if !e.Exists {
				col.add("filesystem", "entry_unavailable", 1)
				col.complete, col.unstable = false, true
				continue
			}
			if e.Name == ".gitignore" {
				en.ignoreFiles = append(en.ignoreFiles, rel)
			}
			if e.IsLink() {
				col.add("filesystem", "link_or_reparse", 1)
				continue
			}
			if e.IsDir() {
				if policy.IsExcluded(rel, policy.DefaultExclude) {
					continue
				}
				if policy.SensitiveName(e.Name) {
					col.add("filesystem", "sensitive_name", 1)
					continue
				}
				en.stamps = append(en.stamps, stamp{rel, e})
				if err := walk(rel); err != nil {
					return err
				}
				continue
			}
			if e.Name == ".gitignore" {
				en.stamps = append(en.stamps, stamp{rel, e})
			}
			if dir == "" && e.Name == policy.OverlayPath {
				continue
			}
			if !e.IsRegular() || !isMarkdown(e.Name) {
				continue
			}
			switch {
			case policy.SensitiveName(e.Name):
				col.add("document", "sensitive_name", 1)
			case e.Nlink != 1:
				// Stamped: dropping the other link makes it readable.
				col.add("document", "hard_link_or_nonregular", 1)
				en.stamps = append(en.stamps, stamp{rel, e})
			case e.Size > limits.MaxFileBytes:
				return workLimit("a Markdown file is over the 1 MiB limit")
			default:
				en.markdown = append(en.markdown, candidate{rel, e})
				if len(en.markdown) > limits.MaxMarkdownFiles {
					return workLimit("the workspace has more Markdown files than one call may read")
				}
			}
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil, err
	}
	return en, nil
}

// Take builds a fresh snapshot: policy files, a walk of the tree, privacy
// admission, the reads, and admission again to prove the policy held still.
func Take(ctx context.Context, ws *workspace.Workspace) (*Snapshot, error) {
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
			return nil, workLimit("a workspace policy file is over the 1 MiB limit")
		}
		cfgCands = append(cfgCands, c)
	}
	en, err := enumerate(ctx, ws, col)
	if err != nil {
		return nil, err
	}
	// The policy inputs are stamped before Git or the thin matcher reads
	// them, so a change at any later moment shows in a stat after the reads.
	inputs := append([]stamp(nil), en.stamps...)
	infos, err := ws.StatMany(policy.Inputs)
	if err != nil {
		return nil, err
	}
	for i, rel := range policy.Inputs {
		inputs = append(inputs, stamp{rel, infos[i]})
	}
	names := make([]string, 0, len(cfgCands)+len(en.markdown))
	for _, c := range cfgCands {
		names = append(names, c.rel)
	}
	for _, c := range en.markdown {
		names = append(names, c.rel)
	}
	// Every name was just listed (or, for the policy files, stat'd) as a
	// regular single-link file, and every read re-checks its file's identity.
	popts := policy.Options{IgnoreFiles: en.ignoreFiles, Listed: true}
	adm, err := policy.Admit(ctx, ws, names, popts)
	if err != nil {
		return nil, err
	}
	for _, o := range adm.Omissions {
		col.add(o.Kind, o.Reason, o.Count)
	}
	snap := &Snapshot{Admission: adm}
	cfg, budget, err := snap.loadConfig(ws, cfgCands, thin, col)
	if err != nil {
		return nil, err
	}
	snap.Config = cfg
	rootName := filepath.Base(root)
	var jobs []candidate
	for _, c := range en.markdown {
		if !adm.Admits(c.rel) {
			continue
		}
		if policy.IsExcluded(c.rel, cfg.Exclude) {
			col.add("document", "config_excluded", 1)
			continue
		}
		if c.info.Size > budget {
			return nil, workLimit("the workspace holds more Markdown bytes than one call may read")
		}
		budget -= c.info.Size
		jobs = append(jobs, c)
	}
	results, err := readDocuments(ctx, ws, jobs, cfg, rootName)
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
	sort.SliceStable(snap.Docs, func(i, j int) bool { return guard.Less(snap.Docs[i].Path, snap.Docs[j].Path) })
	snap.Graph = graph.Build(snap.Docs)
	snap.Complete = col.complete
	snap.Omissions = rows(col.rows)
	snap.stamps = append(snap.stamps, inputs...)
	snap.outside = adm.Outside
	snap.racy = col.unstable || racy(snap.stamps, snap.outside, started)
	if snap.Fingerprint, err = snap.fingerprint(); err != nil {
		return nil, reason.Wrap(reason.ProducerUnavailable, "fingerprint failed", err)
	}
	if err := ws.Check(); err != nil {
		return nil, err
	}
	return snap, nil
}

// loadConfig reads and composes the admitted policy files. It returns the
// remaining aggregate byte budget.
func (s *Snapshot) loadConfig(ws *workspace.Workspace, cands []candidate, thin bool, col *collector) (*policy.Config, int64, error) {
	budget := int64(limits.MaxAggregateBytes)
	var parsed []map[string]any
	legacyFail := func(why string) (*policy.Config, int64, error) {
		col.add("config", why, 1)
		col.complete = false
		return policy.DefaultConfig(), budget, nil
	}
	for _, c := range cands {
		if !s.Admission.Admits(c.rel) {
			if thin {
				return nil, 0, policyUnavailable("a workspace policy file is ignored or secret-looking")
			}
			return legacyFail("git_ignored")
		}
		want := c.info
		// Its stamp is among the policy inputs Take stamped before this read.
		data, _, err := ws.ReadFile(c.rel, limits.MaxFileBytes, &want)
		if err == workspace.ErrTooLarge {
			return nil, 0, workLimit("a workspace policy file is over the 1 MiB limit")
		}
		if err != nil {
			if thin {
				return nil, 0, policyUnavailable("a workspace policy file cannot be read")
			}
			return legacyFail("unavailable")
		}
		budget -= int64(len(data))
		text := string(data)
		if guard.Credential(text, guard.Producer) || guard.ContainsRoot(text, ws.Root()) {
			if thin {
				return nil, 0, policyUnavailable("a workspace policy file holds a credential or a machine path")
			}
			return legacyFail("sensitive_content")
		}
		raw, err := policy.ParseTOML(data)
		if err != nil {
			if thin {
				return nil, 0, policyUnavailable("a workspace policy file is not valid TOML")
			}
			return legacyFail("invalid")
		}
		parsed = append(parsed, raw)
		s.configFiles = append(s.configFiles, configFile{rel: c.rel, data: data, sha256: hexSHA(data)})
	}
	if len(parsed) == 0 {
		return policy.DefaultConfig(), budget, nil
	}
	cfg, packs, err := policy.Compose(parsed, thin)
	if err != nil {
		if thin {
			return nil, 0, reason.Wrap(reason.PrivacyPolicyUnavailable, "the workspace policy is invalid or loosens its base: "+err.Error(), err)
		}
		return legacyFail("invalid")
	}
	col.add("config", "local_pack_excluded", len(packs))
	return cfg, budget, nil
}

func hexSHA(b []byte) string { return strings.TrimPrefix(canon.Digest(b), "sha256:") }

func (s *Snapshot) configDigest() (string, error) {
	switch len(s.configFiles) {
	case 0:
		return "default", nil
	case 1:
		return s.configFiles[0].sha256, nil
	}
	list := make([]map[string]string, len(s.configFiles))
	for i, c := range s.configFiles {
		list[i] = map[string]string{"path": c.rel, "sha256": c.sha256}
	}
	b, err := canon.Compact(list)
	if err != nil {
		return "", err
	}
	return hexSHA(b), nil
}

// docResult is what reading and analysing one candidate gave.
type docResult struct {
	doc     *graph.Document
	info    workspace.Info
	outcome string // "" for a document, else the omission reason
	err     error
}

// readDocuments reads, screens and analyses the candidates on every core.
// Results keep the candidates' order, so the snapshot stays deterministic.
func readDocuments(ctx context.Context, ws *workspace.Workspace, jobs []candidate, cfg *policy.Config, rootName string) ([]docResult, error) {
	out := make([]docResult, len(jobs))
	workers := runtime.GOMAXPROCS(0)
	if workers > len(jobs) {
		workers = len(jobs)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	root := ws.Root()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			files := ws.NewReader()
			defer files.Close()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				if i%32 == 0 && ctx.Err() != nil {
					out[i].err = cancelled(ctx)
					return
				}
				out[i] = readDocument(files, jobs[i], cfg, rootName, root)
			}
		}()
	}
	wg.Wait()
	if err := cancelled(ctx); err != nil {
		return nil, err
	}
	for _, r := range out {
		if r.err != nil {
			return nil, r.err
		}
	}
	return out, nil
}

func readDocument(files *workspace.Reader, c candidate, cfg *policy.Config, rootName, root string) docResult {
	want := c.info
	data, info, err := files.ReadFile(c.rel, limits.MaxFileBytes, &want)
	switch {
	case err == workspace.ErrTooLarge:
		return docResult{err: workLimit("a Markdown file is over the 1 MiB limit")}
	case err == workspace.ErrChanged:
		return docResult{outcome: "changed"}
	case err != nil:
		return docResult{outcome: "unavailable"}
	}
	// info is the identity the read verified; omissions below keep it as
	// their stamp.
	// The buffer is never written again, so the text shares it instead of
	// copying 24 MiB per cold call.
	text := unsafe.String(unsafe.SliceData(data), len(data))
	if !utf8.Valid(data) {
		text = strings.ToValidUTF8(text, "\ufffd")
		data = []byte(text)
	}
	if guard.Credential(text, guard.Producer) || guard.ContainsRoot(text, root) {
		return docResult{outcome: "sensitive_content", info: info}
	}
	d := graph.Analyze(cfg, c.rel, rootName, text, info.Mtime, info.Ctime)
	d.Digest = hexSHA(data) // data holds d.Text
	return docResult{doc: d, info: info}
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
