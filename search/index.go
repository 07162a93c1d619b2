package search

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// The fields a term is counted in, each with its own weight and length
// normalisation (see score.go).
const (
	fTitle = iota // id and title
	fMeta         // frontmatter values, refs included
	fPath
	fBody // the text after the frontmatter
	nFields
)

// posting is one document holding a term: its slot and the term's count
// per field, saturated at 255 (the score saturates long before).
type posting struct {
	slot uint32
	tf   [nFields]uint8
}

// plist is the postings of one term, in slot order. Postings of a
// removed document stay until the next compaction (see remove): df
// counts only the live ones.
type plist struct {
	ps []posting
}

// Prepared is what the snapshot's read pass computes per document for the
// index: its distinct terms with their counts per field (dropped once
// indexed, packed into three allocations while they wait) and its field
// lengths.
type Prepared struct {
	blob            string   // the distinct terms, end to end
	ends            []uint32 // where each term of blob ends
	tfs             [][nFields]uint8
	lens            [nFields]int32
	idKey, titleKey string // the id's and the title's terms, joined by "-"
	focus           *Focus // the terms kept, when not all are
	spent           bool   // indexed: the terms moved into an index
}

func (p *Prepared) each(fn func(term string, tf [nFields]uint8)) {
	start := uint32(0)
	for i, end := range p.ends {
		fn(p.blob[start:end], p.tfs[i])
		start = end
	}
}

// scratch is a worker's reusable tokenizing state.
type scratch struct {
	tok   scanner
	terms termTable
	tfs   [][nFields]uint8
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// Prepare tokenizes d, whose text is text, for the index; it is
// snapshot.Options.Prepare.
func Prepare(d *graph.Document, text string) any { return prepare(d, text) }

func prepare(d *graph.Document, text string) *Prepared { return prepareFor(d, text, nil) }

// prepareFor tokenizes d, keeping only the terms of focus, or all of them
// when it is nil; the field lengths count every term either way.
func prepareFor(d *graph.Document, text string, focus *Focus) *Prepared {
	sc := scratches.Get().(*scratch)
	defer func() {
		sc.terms.reset()
		sc.tfs = sc.tfs[:0]
		scratches.Put(sc)
	}()
	p := &Prepared{focus: focus}
	add := func(f int, text string) {
		sc.tok.scan(text, func(t token) {
			p.lens[f]++
			if focus != nil && !focus.has(t.term) {
				return
			}
			i, added := sc.terms.index(t.term)
			if added {
				sc.tfs = append(sc.tfs, [nFields]uint8{})
			}
			if sc.tfs[i][f] < 255 {
				sc.tfs[i][f]++
			}
		})
	}
	add(fTitle, d.ID)
	add(fTitle, d.Title)
	for _, f := range d.FM.Fields {
		add(fMeta, graph.Stringify(f.Value))
	}
	add(fPath, d.Path)
	b := body(text)
	add(fMeta, lead(b))
	add(fBody, b)
	p.blob, p.ends, p.tfs = string(sc.terms.blob), slices.Clone(sc.terms.ends), slices.Clone(sc.tfs)
	p.idKey, p.titleKey = nameKey(d.ID), nameKey(d.Title)
	return p
}

// body is a document's text after its frontmatter.
func body(text string) string {
	_, b, unclosed, _ := graph.Split(text)
	if unclosed {
		return text
	}
	return b
}

// Read returns the text of one of the snapshot's documents, exactly the
// bytes the snapshot analysed (snapshot.Text), or an error; the index
// holds no text.
type Read func(d *graph.Document) (string, error)

type slotDoc struct {
	doc             *graph.Document // nil when dead
	lens            [nFields]int32
	idKey, titleKey string
}

// Index is the inverted index of one snapshot's documents. Update moves it
// to a later snapshot by re-indexing only what changed. Not safe for
// concurrent use: its owner serialises Update and Search.
type Index struct {
	focus  *Focus // nil: every term
	snap   *snapshot.Snapshot
	slots  []slotDoc
	bySlot map[*graph.Document]uint32
	post   map[string]*plist
	live   int
	sumLen [nFields]int64
	// scratch of Search
	weights [][nFields]float32 // nil after a change
	// contract are the slots of the workspace's contract files, found with
	// weights under the policy contractOf.
	contract   []uint32
	contractOf *policy.Config
	prefixes   prefixTable // nil until a search needs it
	preSum     []float64   // scratch of prefixScore
	preFields  []uint8
	preHit     []uint32
	acc        []cand
	touched    []uint32
}

// NewIndex returns an empty index; Update fills it.
func NewIndex() *Index {
	return &Index{bySlot: map[*graph.Document]uint32{}, post: map[string]*plist{}}
}

// Snapshot is the snapshot the index describes.
func (ix *Index) Snapshot() *snapshot.Snapshot { return ix.snap }

// Update makes the index describe s by comparing documents: a document
// the snapshot kept in place is the very same pointer, and one read again
// (changed, or under a changed policy) is not, so only those are indexed
// again. Documents the read pass did not tokenize are read with read; its
// error leaves the index describing no snapshot.
func (ix *Index) Update(s *snapshot.Snapshot, read Read) error {
	return ix.UpdateContext(context.Background(), s, read)
}

// UpdateContext is Update that stops soon after ctx ends. What it indexed
// before it stopped stays indexed (the index then describes no snapshot):
// the next Update finds those documents already in and adds the rest.
func (ix *Index) UpdateContext(ctx context.Context, s *snapshot.Snapshot, read Read) error {
	if ix.snap == s {
		return nil
	}
	gone, added := ix.diff(s)
	ix.remove(gone)
	ix.snap = nil
	if len(gone)+len(added) > 0 {
		ix.weights = nil
	}
	prepared := make([]*Prepared, len(added))
	var missing []int
	for j, i := range added {
		if i < len(s.Prepared) {
			prepared[j], _ = s.Prepared[i].(*Prepared)
		}
		// Already indexed elsewhere (its terms gone), or prepared for
		// another focus, it is prepared again.
		if prepared[j] == nil || prepared[j].spent || prepared[j].focus != ix.focus {
			missing = append(missing, j)
		}
	}
	// Documents the read pass did not tokenize (a reader whose first
	// snapshot did not prepare, or a second index over one snapshot) are
	// read again and tokenized on every core.
	errs := make([]error, len(missing))
	tokenized := make([]bool, len(added))
	parallel(len(missing), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			d := s.Docs[added[missing[k]]]
			var text string
			if text, errs[k] = read(d); errs[k] == nil {
				prepared[missing[k]] = prepareFor(d, text, ix.focus)
				tokenized[missing[k]] = true
			} else {
				prepared[missing[k]] = nil
			}
		}
	})
	// What was tokenized here is indexed even when a read failed or ctx
	// ended (adding costs a fraction of tokenizing), so a cut call's work
	// is not done twice; once ctx ends, nothing else is.
	var failed error
	for _, err := range errs {
		if err != nil {
			failed = err
			break
		}
	}
	stopped := false
	for j, i := range added {
		if prepared[j] == nil {
			continue
		}
		if !tokenized[j] && (stopped || ctx.Err() != nil) {
			stopped = true
			continue
		}
		ix.add(s.Docs[i], prepared[j])
	}
	if stopped {
		return ctx.Err()
	}
	if failed != nil {
		return failed
	}
	// Dropping dead postings is a pass over every list: it waits until
	// the dead are an eighth of the live, so an edit's share of it stays
	// the same at any size, and so does the memory they hold.
	if dead := len(ix.slots) - ix.live; dead > compactMin && 8*dead > ix.live {
		ix.compact()
	}
	ix.snap = s
	return nil
}

// diff finds the indexed documents s no longer holds and those it adds.
func (ix *Index) diff(s *snapshot.Snapshot) (gone []*graph.Document, added []int) {
	keep := make(map[*graph.Document]bool, len(s.Docs))
	for i, d := range s.Docs {
		if _, ok := ix.bySlot[d]; ok {
			keep[d] = true
		} else {
			added = append(added, i)
		}
	}
	for d := range ix.bySlot {
		if !keep[d] {
			gone = append(gone, d)
		}
	}
	return gone, added
}

func (ix *Index) add(d *graph.Document, p *Prepared) {
	slot := uint32(len(ix.slots))
	ix.slots = append(ix.slots, slotDoc{doc: d, lens: p.lens, idKey: p.idKey, titleKey: p.titleKey})
	ix.bySlot[d] = slot
	ix.live++
	for f := range nFields {
		ix.sumLen[f] += int64(p.lens[f])
	}
	p.each(func(term string, tf [nFields]uint8) {
		pl := ix.post[term]
		if pl == nil {
			pl = &plist{}
			// A key of its own: the blob goes when the terms are indexed.
			term = strings.Clone(term)
			ix.post[term] = pl
			if ix.prefixes != nil {
				ix.prefixes.add(term)
			}
		}
		pl.ps = append(pl.ps, posting{slot: slot, tf: tf})
	})
	// The terms live on in the postings; the snapshot keeps only the lengths.
	p.blob, p.ends, p.tfs, p.spent = "", nil, nil, true
}

// remove drops documents from the index: their slots die, and their
// postings with them, though the lists keep them until compact. Neither
// their terms nor their text are kept, so finding their postings would be
// a pass over every list: an edit must cost what it changes.
func (ix *Index) remove(gone []*graph.Document) {
	for _, d := range gone {
		slot := ix.bySlot[d]
		delete(ix.bySlot, d)
		sd := &ix.slots[slot]
		for f := range nFields {
			ix.sumLen[f] -= int64(sd.lens[f])
		}
		sd.doc = nil
		ix.live--
	}
}

// compactMin is how many dead slots an index holds at least before it
// compacts; tests lower it.
var compactMin = 1024

// df is how many live documents hold the term of pl (nil: none).
func (ix *Index) df(pl *plist) int {
	if pl == nil {
		return 0
	}
	if ix.live == len(ix.slots) {
		return len(pl.ps)
	}
	n := 0
	for _, p := range pl.ps {
		if ix.slots[p.slot].doc != nil {
			n++
		}
	}
	return n
}

// compact drops dead slots and their postings, and renumbers the live
// slots.
func (ix *Index) compact() {
	renum := make([]uint32, len(ix.slots))
	var slots []slotDoc
	for i, sd := range ix.slots {
		if sd.doc != nil {
			renum[i] = uint32(len(slots))
			ix.bySlot[sd.doc] = uint32(len(slots))
			slots = append(slots, sd)
		}
	}
	for term, pl := range ix.post {
		out := pl.ps[:0]
		for _, p := range pl.ps {
			if ix.slots[p.slot].doc != nil {
				p.slot = renum[p.slot]
				out = append(out, p)
			}
		}
		if len(out) == 0 {
			delete(ix.post, term)
			if ix.prefixes != nil {
				ix.prefixes.drop(term)
			}
		} else {
			pl.ps = out
		}
	}
	ix.slots = slots
	ix.weights = nil
	ix.acc, ix.preSum, ix.preFields = nil, nil, nil
}

// edgeText is the field names and targets of d's resolved edges, for the
// "edge context match" reason.
func (ix *Index) edges(d *graph.Document) []graph.Edge {
	var out []graph.Edge
	if ix.snap == nil {
		return nil
	}
	for _, e := range d.Edges {
		if _, ok := ix.snap.Graph.Nodes[e.To]; ok {
			out = append(out, e)
		}
	}
	return out
}

func hasAny(text string, terms map[string]int) bool {
	found := false
	if strings.TrimSpace(text) == "" {
		return false
	}
	scan(text, func(t token) {
		if _, ok := terms[string(t.term)]; ok {
			found = true
		}
	})
	return found
}

// parallel runs fn over [0,n) split across the cores.
func parallel(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, min(lo+chunk, n))
	}
	wg.Wait()
}
