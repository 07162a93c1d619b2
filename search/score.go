package search

import (
	"context"
	"math"
	"sort"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/guard"
)

// BM25F: a term's counts in the fields are weighted and length-normalised
// per field, summed, then saturated once, so a long note cannot win on
// repetition and a match in a title counts for more than one in prose.
var (
	fieldWeight = [nFields]float64{fTitle: 3, fMeta: 2, fPath: 2, fBody: 1}
	fieldB      = [nFields]float64{fTitle: 0.3, fMeta: 0.5, fPath: 0.3, fBody: 0.75}
)

const (
	// k1 is where repetition saturates: high enough that a note saying a
	// word many times (the page about it) outweighs one that says a rarer
	// word of the question once in passing.
	k1 = 4.0
	// idfCap bounds a question word's weight at this share of the mean of
	// its words' weights: a word that is rare in the vault but not what
	// the question is about ("piece", "five", "two") cannot outweigh the
	// words that are.
	idfCap = 0.8
	// described weighs, per unit of its idf, a topical question word (see
	// topical) in a note's title or description (its frontmatter or its
	// lead, see lead) on top of its BM25F score, unsaturated: the page
	// that says it is about the question's words outranks the longer pages
	// that use them most.
	described = 2.0
	// exactTitle weighs a question that is exactly a document's id or
	// title (a keyword search for it), per unit of the question's idf.
	exactTitle = 1.0
)

// reasonOf names the published reason of a match in each field.
var reasonOf = [nFields]string{fTitle: "title/id match", fMeta: "frontmatter match", fPath: "path match", fBody: "body match"}

// Query is one search.
type Query struct {
	Text string
	K    int
	// Keep filters the documents (type, path and edge filters); nil keeps all.
	Keep func(d *graph.Document, edges []graph.Edge) bool
	// EdgeFilters is how many edge filters Keep applies: with any, every
	// kept document is a hit, ranked by its text match.
	EdgeFilters  int
	SnippetChars int
	// Safe says whether a text may be shown; a snippet that is not is
	// replaced by the next best passage, or none.
	Safe func(string) bool
	// Read gives the text of the best few, for proximity and snippets; its
	// error fails the search (never a partial answer).
	Read Read
}

// Hit is one ranked document.
type Hit struct {
	Doc        *graph.Document
	Edges      []graph.Edge // resolved edges
	Score      int          // ≥ 1
	Reasons    []string
	Snippet    string
	HasSnippet bool
}

type cand struct {
	slot   uint32
	score  float64
	fields uint8
}

// Search ranks the indexed documents for q: BM25F over the documents that
// hold a query term (or, with edge filters, every kept document), then a
// proximity bonus, reasons and snippets for the few best.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	terms, nWords, named := ix.questionTerms(q.Text)
	qt := map[string]int{}
	var lists []*plist
	var idfs []float64
	n := float64(ix.live)
	for i, t := range terms {
		qt[t] = i
		pl := ix.post[t]
		idf := 0.0
		if df := float64(ix.df(pl)); df > 0 {
			idf = math.Log(1 + (n-df+0.5)/(df+0.5))
		}
		lists = append(lists, pl)
		idfs = append(idfs, idf)
	}
	if ix.contractOf != ix.snap.Config {
		ix.stale = true
	}
	capIDF(idfs, nWords)
	topic := topical(idfs, nWords)
	ix.fieldWeights()
	// Scores accumulate in arrays indexed by slot, kept between searches
	// (the owner serialises them) and cleared through the touched list.
	if len(ix.acc) < len(ix.slots) {
		// An edit adds a slot: room for more, so the next few do not
		// allocate the whole table again.
		ix.acc = make([]cand, len(ix.slots)+len(ix.slots)/8)
	}
	acc := ix.acc
	touched := ix.touched[:0]
	defer func() {
		for _, s := range touched {
			acc[s] = cand{}
		}
		ix.touched = touched[:0]
	}()
	for i, pl := range lists {
		if pl == nil {
			continue
		}
		idf, onlyMatched := idfs[i], i >= named
		// descOf is, per set of fields matched, the bonus of a match in the
		// title or the description (described): a load, not a branch, per
		// posting.
		var descOf [1 << nFields]float64
		for f := range descOf {
			if f&(1<<fTitle|1<<fMeta) != 0 && idf >= topic {
				descOf[f] = described * idf
			}
		}
		for j, p := range pl.all() {
			if err := poll(ctx, j); err != nil {
				return nil, err
			}
			fw := ix.weightOf(p.slot)
			if fw[0] < 0 {
				continue // a dead slot
			}
			w := 0.0
			var fields uint8
			for f := range nFields {
				if p.tf[f] != 0 {
					fields |= 1 << f
					w += float64(fw[f]) * float64(p.tf[f])
				}
			}
			c := &acc[p.slot]
			if c.fields == 0 {
				if onlyMatched {
					continue
				}
				c.slot = p.slot
				touched = append(touched, p.slot)
			}
			c.score += idf*w*(k1+1)/(k1+w) + descOf[fields]
			c.fields |= fields
		}
	}
	for _, t := range terms[:nWords] {
		if !prefixable(t) {
			continue
		}
		err := ix.prefixScore(ctx, t, func(slot uint32, score float64, fields uint8) {
			c := &acc[slot]
			if c.fields == 0 && c.score == 0 {
				c.slot = slot
				touched = append(touched, slot)
			}
			c.score += score
			c.fields |= fields
		})
		if err != nil {
			return nil, err
		}
	}
	if !aboutWorkspace(terms) {
		for _, s := range ix.contract {
			acc[s].score = 0
		}
	}
	keep := func(sd *slotDoc) bool {
		return q.Keep == nil || q.Keep(sd.doc, ix.edges(sd.doc))
	}
	// exact is the bonus of a document whose id or title is the question.
	var exact func(slot uint32) float64
	bonus := 0.0
	if nWords > 0 {
		key := nameKey(q.Text)
		sum := 0.0
		for _, idf := range idfs[:nWords] {
			sum += idf
		}
		bonus = exactTitle * sum
		exact = func(slot uint32) float64 {
			if sd := &ix.slots[slot]; sd.idKey == key || sd.titleKey == key {
				return exactTitle * sum
			}
			return 0
		}
	}
	// Proximity needs the text, so only the best few are read again.
	pool := q.K + 10
	var top []cand
	consider := func(c cand) {
		if len(top) == pool && c.score+bonus < top[pool-1].score {
			return // not even an exact title would lift it in
		}
		if exact != nil && c.fields&(1<<fTitle) != 0 {
			c.score += exact(c.slot)
		}
		if len(top) == pool && !ix.less(&c, &top[pool-1]) {
			return
		}
		// Copied for the search's closure, which would otherwise move c
		// to the heap for every candidate considered.
		in := c
		i := sort.Search(len(top), func(i int) bool { return ix.less(&in, &top[i]) })
		if len(top) < pool {
			top = append(top, cand{})
		}
		copy(top[i+1:], top[i:len(top)-1])
		top[i] = c
	}
	if q.EdgeFilters > 0 {
		for s := range ix.slots {
			if err := poll(ctx, s); err != nil {
				return nil, err
			}
			sd := &ix.slots[s]
			if sd.doc == nil || !keep(sd) {
				continue
			}
			c := acc[s]
			c.slot = uint32(s)
			consider(c)
		}
	} else {
		for i, s := range touched {
			if err := poll(ctx, i); err != nil {
				return nil, err
			}
			if c := acc[s]; c.score > 0 && keep(&ix.slots[s]) {
				consider(c)
			}
		}
	}
	cands := top
	texts := make(map[uint32]string, len(cands))
	text := func(slot uint32) (string, error) {
		t, ok := texts[slot]
		if !ok {
			var err error
			if t, err = q.Read(ix.slots[slot].doc); err != nil {
				return "", err
			}
			texts[slot] = t
		}
		return t, nil
	}
	if nWords > 1 {
		for i := range cands {
			t, err := text(cands[i].slot)
			if err != nil {
				return nil, err
			}
			cands[i].score += proximity(body(t), qt, idfs[:nWords])
		}
		sort.Slice(cands, func(i, j int) bool { return ix.less(&cands[i], &cands[j]) })
	}
	if len(cands) > q.K {
		cands = cands[:q.K]
	}
	hits := make([]Hit, 0, len(cands))
	for _, c := range cands {
		d := ix.slots[c.slot].doc
		h := Hit{Doc: d, Edges: ix.edges(d), Score: max(1, int(math.Round(c.score*100)))}
		for f := range nFields {
			// The meta field also counts the body's lead (see lead): a
			// match there alone is a body match.
			if c.fields&(1<<f) != 0 && (f != fMeta || frontmatterHas(d, qt)) {
				h.Reasons = append(h.Reasons, reasonOf[f])
			}
		}
		for _, e := range h.Edges {
			if hasAny(e.Field+" "+e.To, qt) {
				h.Reasons = append(h.Reasons, "edge context match")
				break
			}
		}
		if q.EdgeFilters > 0 {
			h.Score += 20 * q.EdgeFilters
			h.Reasons = append(h.Reasons, "edge filter match")
		}
		if q.SnippetChars > 0 {
			t, err := text(c.slot)
			if err != nil {
				return nil, err
			}
			h.Snippet, h.HasSnippet = snippet(d, t, qt, idfs, q.SnippetChars, q.Safe)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

func frontmatterHas(d *graph.Document, qt map[string]int) bool {
	for _, f := range d.FM.Fields {
		if hasAny(graph.Stringify(f.Value), qt) {
			return true
		}
	}
	return false
}

// weight is one slot's field weights: each field's weight over its
// length normalisation, so a term's weighted count is a sum of products.
// A dead slot's first weight is -1.
type weight struct {
	w   [nFields]float32
	gen uint32 // the statistics they were computed under; 0: none
}

// fieldWeights moves the weights on to the index's statistics now, after
// a change: a new generation, which weightOf computes each slot's
// weights under when a search first needs them. Nothing visits every
// slot: an edit must cost what it changes.
func (ix *Index) fieldWeights() {
	if !ix.stale {
		return
	}
	ix.findContract()
	for f := range nFields {
		ix.avg[f] = 1
		if ix.live > 0 && ix.sumLen[f] > 0 {
			ix.avg[f] = float64(ix.sumLen[f]) / float64(ix.live)
		}
	}
	if ix.gen++; ix.gen == 0 {
		// Wrapped: no weight may pass for this generation's.
		clear(ix.weights)
		ix.gen = 1
	}
	if n := len(ix.slots); len(ix.weights) < n {
		ix.weights = append(ix.weights, make([]weight, n-len(ix.weights))...)
	}
	ix.stale = false
}

// weightOf is the field weights of slot under the current statistics.
func (ix *Index) weightOf(slot uint32) *[nFields]float32 {
	w := &ix.weights[slot]
	if w.gen != ix.gen {
		ix.weigh(w, slot)
	}
	return &w.w
}

// weigh computes w, slot's weights, under the current statistics. Kept
// out of line so that weightOf, once a posting, is inlined.
//
//go:noinline
func (ix *Index) weigh(w *weight, slot uint32) {
	w.gen = ix.gen
	sd := &ix.slots[slot]
	if sd.doc == nil {
		w.w = [nFields]float32{-1}
		return
	}
	for f := range nFields {
		w.w[f] = float32(fieldWeight[f] / (1 - fieldB[f] + fieldB[f]*float64(sd.lens[f])/ix.avg[f]))
	}
}

// less is the rank order: score, then path, then id.
func (ix *Index) less(a, b *cand) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	da, db := ix.slots[a.slot].doc, ix.slots[b.slot].doc
	if c := guard.Compare(da.Path, db.Path); c != 0 {
		return c < 0
	}
	return da.ID < db.ID
}

// proximity rewards query terms that stand close together in the body, in
// the query's order or not: for each pair of terms next to each other in
// the query, the closest their occurrences come, weighted by the rarer.
func proximity(body string, qt map[string]int, idfs []float64) float64 {
	last := make([]int, len(idfs))
	best := make([]int, len(idfs)) // best[i]: closest distance of terms i and i+1
	for i := range last {
		last[i], best[i] = -1, math.MaxInt
	}
	scan(body, func(t token) {
		if t.parts > 0 {
			return
		}
		i, ok := qt[string(t.term)]
		if !ok || i >= len(last) {
			return
		}
		last[i] = t.pos
		if i > 0 && last[i-1] >= 0 {
			best[i-1] = min(best[i-1], t.pos-last[i-1])
		}
		if i+1 < len(last) && last[i+1] >= 0 {
			best[i] = min(best[i], t.pos-last[i+1])
		}
	})
	bonus := 0.0
	for i := 0; i+1 < len(idfs); i++ {
		d := best[i]
		if d == math.MaxInt {
			continue
		}
		w := min(idfs[i], idfs[i+1])
		switch {
		case d <= 1:
			bonus += w
		case d <= 3:
			bonus += w * 0.5
		case d <= 8:
			bonus += w * 0.2
		}
	}
	return bonus
}
