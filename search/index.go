package search

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

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

// Prepared is what the snapshot's read pass computes per document for the
// index: its distinct terms with their counts per field (dropped once
// indexed, packed into one allocation while they wait: a first search
// holds every document's at once) and its field lengths.
type Prepared struct {
	// terms is each distinct term, a 0 byte (never in a term) and its
	// counts (appendTF), end to end.
	terms           []byte
	lens            [nFields]int32
	idKey, titleKey string // the id's and the title's terms, joined by "-"
	focus           *Focus // the terms kept, when not all are
	spent           bool   // indexed: the terms moved into an index
	held            *held  // its share of the budget, for Prepare's
}

func (p *Prepared) each(fn func(term []byte, tf [nFields]uint8)) {
	for i := 0; i < len(p.terms); {
		end := i + bytes.IndexByte(p.terms[i:], 0)
		tf, next := readTF(p.terms, end+1)
		fn(p.terms[i:end], tf)
		i = next
	}
}

// scratch is a worker's reusable tokenizing state.
type scratch struct {
	tok   scanner
	terms termTable
	tfs   [][nFields]uint8
	fold  []byte // the body lowered, for Focus.chains
	hits  []int  // where the body holds a focus's needles
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// Prepare tokenizes d, whose text is text, for the index; it is
// snapshot.Options.Prepare. Past the process's budget of prepared terms
// it returns nil: the index reads that document again when it indexes it,
// a batch at a time (see Update).
func Prepare(d *graph.Document, text string) any {
	if preparedBytes.Load() > preparedBudget {
		return nil
	}
	p := prepare(d, text)
	p.held = &held{n: int64(cap(p.terms))}
	preparedBytes.Add(p.held.n)
	// A snapshot that is never indexed (a refused or retried call) gives
	// its share back when it is collected.
	runtime.AddCleanup(p, (*held).release, p.held)
	return p
}

// preparedBudget bounds the bytes of terms that read passes hold for the
// indexes of this process at once: a first search of a big vault would
// otherwise hold every document's terms before indexing one (about 4 KB
// a note of a person's vocabulary, 200 MB at 50,000 notes) on top of the
// index it builds.
const preparedBudget = 48 << 20

var preparedBytes atomic.Int64

// held is one Prepared's share of the budget.
type held struct {
	n    int64
	done atomic.Bool
}

func (h *held) release() {
	if h != nil && h.done.CompareAndSwap(false, true) {
		preparedBytes.Add(-h.n)
	}
}

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
	sc.tok.firsts = nil
	if focus != nil {
		sc.tok.firsts = &focus.lens
	}
	// add tokenizes text into field f; counted says its tokens are counted
	// in the field's length already.
	add := func(f int, text string, counted bool) {
		sc.tok.scan(text, func(t token) {
			if !counted {
				p.lens[f]++
			}
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
	add(fTitle, d.ID, false)
	add(fTitle, d.Title, false)
	for _, f := range d.FM.Fields {
		add(fMeta, graph.Stringify(f.Value), false)
	}
	add(fPath, d.Path, false)
	bd := body(text)
	add(fMeta, lead(bd), false)
	// A focused pass reads only the words around the question's terms
	// where countTerms counts; a line break ends every word and compound,
	// so in a body it does not count, the lines are taken one by one.
	chain := func(chain string) { add(fBody, chain, true) }
	counted := func(text string) bool {
		if sc.fold == nil {
			sc.fold = make([]byte, 0, 8<<10)
		}
		n, low, ok := countLower(text, sc.fold[:0])
		sc.fold = low
		if ok {
			p.lens[fBody] += int32(n)
			focus.chains(text, low, sc, chain)
		}
		return ok
	}
	switch {
	case focus == nil:
		add(fBody, bd, false)
	case counted(bd):
	default:
		for line := range strings.Lines(bd) {
			if !counted(line) {
				add(fBody, line, false)
			}
		}
	}
	// A section's heading says what the section is about: its words
	// count once more in the body (and not in its length).
	add(fBody, headings(bd), true)
	n := len(sc.terms.blob)
	for _, tf := range sc.tfs {
		n += 1 + tfLen(tf)
	}
	p.terms = make([]byte, 0, n)
	start := uint32(0)
	for i, end := range sc.terms.ends {
		p.terms = append(p.terms, sc.terms.blob[start:end]...)
		p.terms = appendTF(append(p.terms, 0), sc.tfs[i])
		start = end
	}
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
	dead   []uint32 // the dead slots, in the order they died
	sumLen [nFields]int64
	// scratch of Search
	// weights are each slot's field weights (see weightOf), computed
	// when a search first needs them under the statistics of gen, which
	// every change moves on: an edit changes every weight (the average
	// lengths move), but a search computes only those of the documents
	// it scores. avg are gen's average field lengths; stale says the
	// index changed since gen.
	weights []weight
	gen     uint32
	avg     [nFields]float64
	stale   bool
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
	return &Index{bySlot: map[*graph.Document]uint32{}, post: map[string]*plist{}, stale: true}
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
	// The snapshot the index describes holds exactly the indexed
	// documents; after a failed Update there is none to compare with.
	var gone []*graph.Document
	var added []int
	ok := false
	if ix.snap != nil {
		gone, added, ok = diffInPlace(ix.snap.Docs, s.Docs)
	}
	if !ok {
		gone, added = ix.diff(s)
	}
	ix.remove(gone)
	ix.snap = nil
	if len(gone)+len(added) > 0 {
		ix.stale = true
	}
	prepared := make([]*Prepared, len(added))
	var missing []int
	for j, i := range added {
		prepared[j], _ = s.Prepared(i).(*Prepared)
		// Already indexed elsewhere (its terms gone), or prepared for
		// another focus, it is prepared again.
		if prepared[j] == nil || prepared[j].spent || prepared[j].focus != ix.focus {
			missing = append(missing, j)
		}
	}
	// What the read pass tokenized goes in first, freeing its terms,
	// until ctx ends. Slots need not follow the snapshot's order: ties
	// rank by path.
	next := 0
	for j, i := range added {
		if next < len(missing) && missing[next] == j {
			next++
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		ix.add(s.Docs[i], prepared[j])
	}
	// Documents the read pass did not tokenize (past the budget, a
	// reader whose first snapshot did not prepare, or a second index over
	// one snapshot) are read again and tokenized on every core, a batch at
	// a time, so their terms never all wait at once. What a batch
	// tokenized is indexed even when a read failed or ctx ended (adding
	// costs a fraction of tokenizing), so a cut call's work is not done
	// twice, but for what a cut finds left to add past addEvery; the next
	// Update compares documents again.
	const batch = 1024
	// Reading every document again is most of a cold call's work when
	// the snapshot was proved fresh: it is counted in the call's progress.
	m := snapshot.MeterOf(ctx)
	m.Expect(len(missing))
	for lo := 0; lo < len(missing); lo += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		ms := missing[lo:min(lo+batch, len(missing))]
		errs := make([]error, len(ms))
		parallelOn(snapshot.Workers(ctx), len(ms), func(lo, hi int) {
			for k := lo; k < hi; k++ {
				d := s.Docs[added[ms[k]]]
				var text string
				if text, errs[k] = read(d); errs[k] == nil {
					prepared[ms[k]] = prepareFor(d, text, ix.focus)
					m.Did()
				}
			}
		})
		for k, j := range ms {
			// Adding a batch of a full index's terms took seconds past the
			// grace on a saturated machine: a cut call stops adding within
			// addEvery documents, and the rest of the batch is read again
			// by the next update.
			if k > 0 && k%addEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if errs[k] == nil {
				ix.add(s.Docs[added[j]], prepared[j])
			}
			prepared[j] = nil
		}
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
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

// diffInPlace finds what changed from prev to docs when docs are prev
// with a few documents replaced in place, as a snapshot after an edit
// is: a comparison of pointers, where diff looks every document up.
func diffInPlace(prev, docs []*graph.Document) (gone []*graph.Document, added []int, ok bool) {
	if len(prev) != len(docs) {
		return nil, nil, false
	}
	for i, d := range docs {
		if d != prev[i] {
			if len(added) == 64 {
				return nil, nil, false
			}
			gone, added = append(gone, prev[i]), append(added, i)
		}
	}
	// A document of prev that moved to another place is not gone.
	for _, g := range gone {
		for _, i := range added {
			if docs[i] == g {
				return nil, nil, false
			}
		}
	}
	return gone, added, true
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
	p.each(func(term []byte, tf [nFields]uint8) {
		pl := ix.post[string(term)]
		if pl == nil {
			pl = &plist{}
			k := string(term)
			ix.post[k] = pl
			if ix.prefixes != nil {
				ix.prefixes.add(k)
			}
		}
		pl.add(slot, tf)
	})
	// The terms live on in the postings; the snapshot keeps only the lengths.
	p.terms, p.spent = nil, true
	p.held.release()
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
		ix.dead = append(ix.dead, slot)
	}
}

// compactMin is how many dead slots an index holds at least before it
// compacts; tests lower it.
var compactMin = 1024

// df is how many live documents hold the term of pl (nil: none). A list
// keeps how many of the dead slots it holds, so after an edit only the
// slots that died since it was last asked are looked up in it (a run of
// postings each), not every posting read: a common word's list holds
// most of the vault.
func (ix *Index) df(pl *plist) int {
	if pl == nil {
		return 0
	}
	if ix.live == len(ix.slots) {
		return pl.n
	}
	lg := pl.long
	if lg == nil || lg.seen > len(ix.dead) {
		lg = &long{} // a short list (or never: compact makes every list anew)
	}
	if news := ix.dead[lg.seen:]; len(news)*skipEvery < pl.n {
		for _, s := range news {
			if pl.has(s) {
				lg.gone++
			}
		}
	} else {
		lg.gone = 0
		for _, p := range pl.all() {
			if ix.slots[p.slot].doc == nil {
				lg.gone++
			}
		}
	}
	lg.seen = len(ix.dead)
	return pl.n - lg.gone
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
		var out plist
		for _, p := range pl.all() {
			if ix.slots[p.slot].doc != nil {
				out.add(renum[p.slot], p.tf)
			}
		}
		if out.n == 0 {
			delete(ix.post, term)
			if ix.prefixes != nil {
				ix.prefixes.drop(term)
			}
		} else {
			*pl = out
		}
	}
	ix.slots, ix.dead = slots, ix.dead[:0]
	ix.stale = true
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
		if ix.snap.Graph.IDs[e.To] {
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

// addEvery is how many documents a batch read again adds between looks at
// the context: each holds all its terms, so fewer than pollEvery.
const addEvery = 128

// pollEvery is how many items (postings, candidates) a search's loop
// handles between looks at its context: a cancelled call's search ends
// within a few milliseconds of work at any size, on a saturated machine
// too.
const pollEvery = 1024

// poll is ctx.Err() at every pollEvery-th item i of a loop, nil between.
func poll(ctx context.Context, i int) error {
	if i%pollEvery != 0 {
		return nil
	}
	return ctx.Err()
}

// parallelOn runs fn over [0,n) split across at most workers goroutines
// (snapshot.Workers: every core, unless the caller asked for fewer); with
// one, fn runs on the caller's own (a background reader's low-priority
// thread).
func parallelOn(workers, n int, fn func(lo, hi int)) {
	workers = min(workers, n)
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
