package search

import (
	"slices"
	"sort"

	"github.com/vivary-dev/vivary-go/guard"
)

// questionTerms are the terms Search looks up for a question, in order:
// its words (Terms), the first nWords of them; then each two neighbours
// joined ("hex dump" also looks for "hexdump", two words a note may write
// as one); then, from named on, its question verbs that name a note here
// ("how do I find large files" also looks for "find" in a vault with a
// note named find). Such a verb is a word of the question's phrasing as
// much as a name, so it only adds to notes that match the other words.
func (ix *Index) questionTerms(text string) (terms []string, nWords, named int) {
	terms = Terms(text)
	nWords = len(terms)
	for i := 0; i+1 < nWords; i++ {
		if j := terms[i] + terms[i+1]; ix.df(ix.post[j]) > 0 && !slices.Contains(terms, j) {
			terms = append(terms, j)
		}
	}
	named = len(terms)
	for _, w := range yieldingIn(text) {
		if !slices.Contains(terms, w) && ix.names(w) {
			terms = append(terms, w)
		}
	}
	return terms, nWords, named
}

// names reports whether term is some document's whole id or title.
func (ix *Index) names(term string) bool {
	pl := ix.post[term]
	if pl == nil {
		return false
	}
	for _, p := range pl.all() {
		if sd := &ix.slots[p.slot]; p.tf[fTitle] != 0 && sd.doc != nil && (sd.idKey == term || sd.titleKey == term) {
			return true
		}
	}
	return false
}

// capIDF bounds each term's idf at idfCap of the mean of the question's
// words' (the first nWords).
func capIDF(idfs []float64, nWords int) {
	if nWords < 2 {
		return
	}
	mean := 0.0
	for _, idf := range idfs[:nWords] {
		mean += idf
	}
	mean /= float64(nWords)
	for i := range idfs {
		idfs[i] = min(idfs[i], idfCap*mean)
	}
}

// topical is the least idf of a question word that counts as what the
// question is about: the mean of its words' (capped) idfs. A description
// ("Print the total number of commits") that holds only the question's
// common words ("print", "show", "list") does not say the note is about
// the question, so those earn no description bonus; its rarer words do.
func topical(idfs []float64, nWords int) float64 {
	if nWords == 0 {
		return 0
	}
	mean := 0.0
	for _, idf := range idfs[:nWords] {
		mean += idf
	}
	return mean / float64(nWords)
}

// aboutWorkspace reports whether a question with these terms asks about
// the workspace itself: its contract files (context.md, AGENTS.md,
// STATE.md) are about how to work here, so they answer only such a
// question, or one that names them, never a question about the notes'
// subject that happens to share words with them.
func aboutWorkspace(terms []string) bool {
	for _, t := range terms {
		switch t {
		case "workspace", "vivary", "context", "agent", "state", "contract", "gate", "rule", "policy":
			return true
		}
	}
	return false
}

// findContract finds the slots of the workspace's contract files: its
// state file and the paths of its law and map roles.
func (ix *Index) findContract() {
	ix.contract, ix.contractOf = ix.contract[:0], ix.snap.Config
	cfg := ix.snap.Config
	if cfg == nil {
		return
	}
	docs := ix.snap.Docs // in path order
	for _, p := range append(append([]string{cfg.State}, cfg.Roles["law"]...), cfg.Roles["map"]...) {
		i := sort.Search(len(docs), func(i int) bool { return guard.Compare(docs[i].Path, p) >= 0 })
		if i < len(docs) && docs[i].Path == p {
			if slot, ok := ix.bySlot[docs[i]]; ok && !slices.Contains(ix.contract, slot) {
				ix.contract = append(ix.contract, slot)
			}
		}
	}
}
