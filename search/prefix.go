package search

import (
	"context"
	"math"
)

// Prefix matching: a question word of at least minPrefix letters also
// matches the longer words that start with it ("mongo" finds "mongodb",
// "listen" finds "listener") and the words of at least minPrefix letters
// it starts with, as documentation abbreviates ("differences" finds
// "diff", "synchronize" finds "sync", "repository" finds "repo"), at
// prefixWeight of an exact match, so a note holding the word itself ranks
// first.
const (
	minPrefix    = 4
	prefixWeight = 0.3
)

// prefixable reports whether a question term is matched as a prefix too:
// a word of letters only (not an identifier or a number), long enough
// that its continuations are likely one family.
func prefixable(t string) bool { return len(t) >= minPrefix && letters(t) }

// continues reports whether term is a longer word of letters that starts
// with t: an identifier (file.txt) is matched by its parts already.
func continues(term, t string) bool {
	return len(term) > len(t) && term[:len(t)] == t && letters(term[len(t):])
}

func letters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// prefixTable holds terms of letters longer than minPrefix by their first
// minPrefix bytes: only those can continue a question's word (an
// identifier such as work-0042, of which a vault may hold thousands under
// one prefix, never does).
type prefixTable map[string][]string

func (pt prefixTable) add(term string) {
	if len(term) > minPrefix && letters(term) {
		pt[term[:minPrefix]] = append(pt[term[:minPrefix]], term)
	}
}

func (pt prefixTable) drop(term string) {
	if len(term) > minPrefix && letters(term) {
		b := pt[term[:minPrefix]]
		for i, u := range b {
			if u == term {
				b[i] = b[len(b)-1]
				pt[term[:minPrefix]] = b[:len(b)-1]
				break
			}
		}
	}
}

// longer are the index's terms that continue t, built on the first search
// that asks and kept up to date by add and remove after that.
func (ix *Index) longer(t string) []string {
	if ix.prefixes == nil {
		ix.prefixes = prefixTable{}
		for term := range ix.post {
			ix.prefixes.add(term)
		}
	}
	var out []string
	for _, u := range ix.prefixes[t[:minPrefix]] {
		if continues(u, t) {
			out = append(out, u)
		}
	}
	return out
}

// shorter are the index's terms of at least minPrefix letters that t
// starts with.
func (ix *Index) shorter(t string, out []string) []string {
	for k := minPrefix; k < len(t); k++ {
		if ix.post[t[:k]] != nil {
			out = append(out, t[:k])
		}
	}
	return out
}

// prefixScore passes to add, for each document holding words that
// continue t or that t continues, prefixWeight of a BM25F score with their weighted counts
// summed as if they were one term, its idf from the documents holding any
// of them.
func (ix *Index) prefixScore(ctx context.Context, t string, add func(slot uint32, score float64, fields uint8)) error {
	longer := ix.shorter(t, ix.longer(t))
	if len(longer) == 0 {
		return nil
	}
	// Where the word itself is in the vault, a continuation that most
	// notes hold ("work" -> "workspace" in a vault about one) says next to
	// nothing about which note answers, and summing it would be a pass
	// over most of the vault's postings: the word is matched as itself
	// only. Where it is not, its continuations are how it is found at all.
	if ix.post[t] != nil {
		for _, u := range longer {
			if 2*ix.df(ix.post[u]) > ix.live {
				return nil
			}
		}
	}
	// Summed in arrays indexed by slot, kept between searches and cleared
	// through the list of slots touched, as Search's own scores are.
	if len(ix.preSum) < len(ix.slots) {
		n := len(ix.slots) + len(ix.slots)/8 // room for the slots of a few edits
		ix.preSum, ix.preFields = make([]float64, n), make([]uint8, n)
	}
	hit := ix.preHit[:0]
	// The sums are cleared through hit, even when ctx ends midway: the
	// next search starts from zero.
	clearHit := func() {
		for _, slot := range hit {
			ix.preSum[slot], ix.preFields[slot] = 0, 0
		}
		ix.preHit = hit[:0]
	}
	seen := 0
	for _, u := range longer {
		for _, p := range ix.post[u].all() { // longer holds only indexed terms
			if err := poll(ctx, seen); err != nil {
				clearHit()
				return err
			}
			seen++
			fw := ix.weightOf(p.slot)
			if fw[0] < 0 {
				continue
			}
			if ix.preFields[p.slot] == 0 {
				hit = append(hit, p.slot)
			}
			for f := range nFields {
				if p.tf[f] != 0 {
					ix.preSum[p.slot] += float64(fw[f]) * float64(p.tf[f])
					ix.preFields[p.slot] |= 1 << f
				}
			}
		}
	}
	n, df := float64(ix.live), float64(len(hit))
	idf := prefixWeight * math.Log(1+(n-df+0.5)/(df+0.5))
	for _, slot := range hit {
		w := ix.preSum[slot]
		add(slot, idf*w*(k1+1)/(k1+w), ix.preFields[slot])
	}
	clearHit()
	return nil
}
