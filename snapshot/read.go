package snapshot

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/workspace"
)

// docResult is what reading and analysing one candidate gave.
type docResult struct {
	doc      *graph.Document
	prepared any
	info     workspace.Info
	outcome  string // "" for a document, else the omission reason
	detail   string // for Options.ListHidden: what in the text decided it
	line     int
	kept     bool // the previous snapshot's, unchanged
	// edgeOmitted is doc's, here so that assembling a snapshot after an
	// edit does not visit every document.
	edgeOmitted int
	err         error
	// json is the document's entry in the fingerprint (docJSON), made
	// by the first snapshot that assembles it and kept with the result.
	json []byte
}

// readDocuments reads, screens and analyses the candidates on every core.
// Results keep the candidates' order, so the snapshot stays deterministic.
func readDocuments(ctx context.Context, ws *workspace.Workspace, jobs []candidate, cfg *policy.Config, rootName string, opt Options,
	fd feed, keep func(string, workspace.Info) (*graph.Document, any)) ([]docResult, error) {
	out := make([]docResult, len(jobs))
	workers := min(workersOf(ctx), len(jobs))
	// Each worker reads every file into one buffer, sized from the walk
	// for the largest candidate: a fresh buffer per file cost an
	// allocation, its page faults and the collections they brought.
	var largest int64
	for _, c := range jobs {
		largest = max(largest, min(c.info.Size, ceilings.file))
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	root := ws.Root()
	m := MeterOf(ctx)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		spawn(workers, func() {
			defer wg.Done()
			files := ws.NewReader()
			defer files.Close()
			if fd != nil {
				files.Opened = fd.fileOpened
			}
			var buf []byte
			if reuseReads {
				buf = make([]byte, largest+1)
				files.Alloc = func(n int) []byte {
					if cap(buf) < n {
						// It grew since the walk, within the limit.
						buf = make([]byte, n)
					}
					return buf[:n]
				}
			}
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				if ctx.Err() != nil {
					out[i].err = cancelled(ctx)
					return
				}
				if keep != nil {
					if d, p := keep(jobs[i].rel, jobs[i].info); d != nil {
						out[i] = docResult{doc: d, prepared: p, info: jobs[i].info, kept: true, edgeOmitted: d.EdgeOmitted}
						m.tick(true)
						continue
					}
				}
				var text string
				out[i], text = readDocument(files, jobs[i], cfg, rootName, root, opt.ListHidden)
				if out[i].doc != nil && opt.Prepare != nil {
					out[i].prepared = opt.Prepare(out[i].doc, text)
				}
				// The text dies here, and its bytes are overwritten by the
				// next read: nothing above keeps a piece of it (Analyze
				// copies what a document holds, Prepare must not keep it).
				// A producer that needs the text reads it again (Text).
				if afterRead != nil {
					afterRead(buf)
				}
				m.tick(false)
			}
		})
	}
	wg.Wait()
	// On a cancel, what was read is returned with the error: a serving
	// Source keeps it for the next call (see Source.kept).
	if err := cancelled(ctx); err != nil {
		return out, err
	}
	for _, r := range out {
		if r.err != nil {
			return out, r.err
		}
	}
	return out, nil
}

// readDocument reads, screens and analyses one candidate; text is the
// document's text, for Options.Prepare, which the result does not keep.
func readDocument(files *workspace.Reader, c candidate, cfg *policy.Config, rootName, root string, listing bool) (_ docResult, text string) {
	want := c.info
	data, info, err := files.ReadFile(c.rel, ceilings.file, &want)
	switch {
	case err == workspace.ErrChanged, err == workspace.ErrTooLarge:
		// The walk saw it within the limit: it grew while it was read.
		return docResult{outcome: "changed"}, ""
	case err != nil:
		return docResult{outcome: "unavailable"}, ""
	}
	// info is the identity the read verified; omissions below keep it as
	// their stamp.
	text, data = decode(data)
	if why := Screen(text, root); why != "" {
		res := docResult{outcome: why, info: info}
		if listing {
			res.detail, res.line = ScreenDetail(text, root)
		}
		return res, ""
	}
	d := graph.Analyze(cfg, c.rel, rootName, text, info.Mtime, info.Ctime)
	if guard.Credential(d.ID) {
		// An id the credential screen matches (slugify lower-cases a file
		// or folder name, which can make one) is a secret name: the note is
		// dropped here rather than failing every call that would list it.
		return docResult{outcome: "sensitive_name", info: info, detail: "the id derived from its name holds a credential"}, ""
	}
	d.Digest, d.Stamp = hexSHA(data), info
	return docResult{doc: d, info: info, edgeOmitted: d.EdgeOmitted}, strings.TrimPrefix(text, "\ufeff")
}

// reuseReads says whether a read worker reuses one buffer for all its
// files; afterRead sees that buffer once a document is done with it. Only
// tests change them, to prove that no document keeps a byte of the buffer.
var (
	reuseReads = true
	afterRead  func(buf []byte)
)

// decode is the text of the bytes read, invalid UTF-8 replaced, and the
// bytes that text holds (what the digest is of). The text shares the read
// buffer instead of copying it, so it lives only until the buffer's next
// read: whatever outlives the document's read pass must be a copy.
func decode(data []byte) (string, []byte) {
	text := unsafe.String(unsafe.SliceData(data), len(data))
	if !utf8.Valid(data) {
		text = strings.ToValidUTF8(text, "\ufffd")
		data = []byte(text)
	}
	return text, data
}

// ErrStale says a document's bytes are no longer those its snapshot
// screened and analysed.
var ErrStale = errors.New("a document changed after the snapshot read it")

// reread, when set, sees the bytes Text read before they are checked; only
// tests set it, to stand for a rewrite that kept every stamp.
var reread func(rel string, data []byte) []byte

// Text reads the text of d again, for a producer that needs its bytes
// (snippets, proximity, tokenizing): a snapshot keeps no text, which would
// cost as much memory as the corpus. The read is the snapshot's own (no
// link followed, the file's identity checked against the stamp d was read
// under, before and after) and the bytes must have d's digest, so what is
// served is exactly what was screened and analysed; anything else is
// ErrStale and nothing of the new bytes is returned. Safe for concurrent
// use.
func Text(ws *workspace.Workspace, d *graph.Document) (string, error) {
	want := d.Stamp
	data, _, err := ws.ReadFile(d.Path, ceilings.file, &want)
	if err != nil {
		return "", ErrStale
	}
	if reread != nil {
		data = reread(d.Path, data)
	}
	text, data := decode(data)
	if hexSHA(data) != d.Digest {
		return "", ErrStale
	}
	return strings.TrimPrefix(text, "\ufeff"), nil
}

// Forget drops snap if it is the kept snapshot, so the next call takes a
// new one from scratch: for a caller whose Text of one of its documents
// was ErrStale.
func (s *Source) Forget(snap *Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap == snap {
		// The next take starts from nothing and reads every document, so
		// what the feed saw change under snap needs no second read.
		s.snap, s.pending, s.kept, s.keptChanged, s.keptPlan = nil, nil, nil, nil, nil
	}
}

// Screen is the content check every document passes before it is served:
// it returns the omission reason that keeps the document out, or "". A
// writer screens what it is about to write with it, so it never makes a
// note every read then drops.
func Screen(text, root string) string {
	if guard.Credential(text) || guard.ContainsRoot(text, root) {
		return "sensitive_content"
	}
	return ""
}

// ScreenDetail says, for a text Screen drops, what it holds and on which
// line: the class of the credential (never its value) or the workspace's
// absolute path.
func ScreenDetail(text, root string) (string, int) {
	if class, line := guard.CredentialAt(text); line > 0 {
		return "holds a credential (" + class + ")", line
	}
	if line := guard.LineWhere(text, func(s string) bool { return guard.ContainsRoot(s, root) }); line > 0 {
		return "holds the workspace's absolute path", line
	}
	return "holds a credential", 0
}
