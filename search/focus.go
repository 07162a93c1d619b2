package search

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/graph"
)

// Focus narrows an index to the terms of one question: a one-shot call
// (`vivary query`, `vivary find`) asks one question and exits, so its read
// pass counts each document's field lengths in full but keeps postings only
// for the terms that question can look up. A search for that question ranks
// exactly as over a full index, because ranking reads nothing else: the
// postings of the question's terms (and of each two neighbours written as
// one, of the words they continue and begin with), the documents' field
// lengths, their id and title keys. It saves the per-document term table
// and most of the index.
type Focus struct {
	terms map[string]bool
	// lens holds, per first byte, the lengths of the terms that start
	// with it (a bit each, 63 for all longer): most tokens stop here.
	lens [256]uint64
	// prefixes are the question's prefixable terms (see prefixable): the
	// words that continue one are kept too. first marks their first bytes.
	prefixes map[string][]string
	first    [256]bool
	// needles are the wanted terms of ASCII less their last byte (see
	// chains).
	needles [][]byte
	rare    []int // each needle's rarest byte (see appendHits)
}

// FocusOn returns the focus of question.
func FocusOn(question string) *Focus {
	f := &Focus{terms: map[string]bool{}}
	var needles [][]byte
	for _, t := range wanted(question) {
		f.terms[t] = true
		f.lens[t[0]] |= lenBit(len(t))
		if ascii(t) {
			needles = append(needles, []byte(t[:max(1, len(t)-1)]))
		}
	}
	f.needles = fewestNeedles(needles)
	for _, n := range f.needles {
		f.rare = append(f.rare, rarest(n))
	}
	f.prefixes = map[string][]string{}
	for _, t := range Terms(question) {
		if prefixable(t) {
			f.prefixes[t[:minPrefix]] = append(f.prefixes[t[:minPrefix]], t)
			f.first[t[0]] = true
		}
	}
	return f
}

// fewestNeedles drops each needle that another one begins with: wherever
// it stands, that one stands too, at the same place, so chains meets the
// same places with one pass over the text where a question's prefixes
// (quok, quokk, quokka...) took one each.
func fewestNeedles(needles [][]byte) [][]byte {
	slices.SortStableFunc(needles, func(a, b []byte) int { return len(a) - len(b) })
	var out [][]byte
	for _, n := range needles {
		if !slices.ContainsFunc(out, func(k []byte) bool { return bytes.HasPrefix(n, k) }) {
			out = append(out, n)
		}
	}
	return out
}

// wanted is every term Search may look up for question: its terms, each
// two neighbours joined, the words a prefixable term begins with (see
// shorter) and its stopwords that may be a vault's names.
func wanted(question string) []string {
	terms := Terms(question)
	out := slices.Clone(terms)
	for i := 0; i+1 < len(terms); i++ {
		out = append(out, terms[i]+terms[i+1])
	}
	for _, t := range terms {
		if prefixable(t) {
			for k := minPrefix; k < len(t); k++ {
				out = append(out, t[:k])
			}
		}
	}
	return append(out, yieldingIn(question)...)
}

func lenBit(n int) uint64 { return 1 << min(n, 63) }

func (f *Focus) has(term []byte) bool {
	if len(term) == 0 {
		return false
	}
	if f.lens[term[0]]&lenBit(len(term)) != 0 && f.terms[string(term)] {
		return true
	}
	if len(term) > minPrefix && f.first[term[0]] {
		for _, t := range f.prefixes[string(term[:minPrefix])] {
			if continues(string(term), t) {
				return true
			}
		}
	}
	return false
}

// covers reports whether an index with focus f answers question as a full
// index would.
func (f *Focus) covers(question string) bool {
	for _, t := range wanted(question) {
		if !f.terms[t] {
			return false
		}
	}
	for _, t := range Terms(question) {
		if prefixable(t) && !slices.Contains(f.prefixes[t[:minPrefix]], t) {
			return false
		}
	}
	return true
}

// Prepare tokenizes d for an index with focus f (NewFocusedIndex); it is
// snapshot.Options.Prepare.
func (f *Focus) Prepare(d *graph.Document, text string) any { return prepareFor(d, text, f) }

// NewFocusedIndex returns an empty index for the question of f. Documents
// prepared for another focus, or for none, are read again and prepared for
// f when they are indexed.
func NewFocusedIndex(f *Focus) *Index {
	ix := NewIndex()
	ix.focus = f
	return ix
}

// Focused is the focus of an index made by NewFocusedIndex, nil for a
// full index.
func (ix *Index) Focused() *Focus { return ix.focus }

// Answers reports whether the index ranks question as a full index would:
// always, unless it is focused on another question.
func (ix *Index) Answers(question string) bool {
	return ix.focus == nil || ix.focus.covers(question)
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
