package search

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// A one-shot query must know every note's length in terms (BM25 divides
// by it) but keeps only its question's terms, which are a few words of a
// note at most. So a note's body of plain ASCII is counted eight bytes at
// a time, and only the compounds around where the body spells one of the
// question's terms (lowered, less the last byte) are tokenized.

// countTerms is how many tokens scan hands out for s, or ok false when s
// holds a byte the count does not read (one from utf8.RuneSelf up, or a
// bracket, which may join the letters around it): scan must count those.
// A token is each run of ASCII letters and digits, and each compound, a
// chain of runs joined by single joiners (a joiner with a run on both
// sides), once more.
func countTerms(s string) (n int, ok bool) {
	var (
		runs, compounds int
		prevWord        uint64 // 0x80 in byte 0: the byte before the chunk is a word byte
		lastLink        = -2   // where the last joiner inside a compound stood
		lastBreak       = -1   // where the last byte neither word nor such a joiner stood
	)
	if strings.IndexByte(s, '[') >= 0 || strings.IndexByte(s, ']') >= 0 {
		return 0, false
	}
	for i := 0; i < len(s); i += 8 {
		var x uint64
		if i+8 <= len(s) {
			x = uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		} else {
			// The bytes past the end read as 0: neither word nor joiner.
			for j := len(s) - 1; j >= i; j-- {
				x = x<<8 | uint64(s[j])
			}
		}
		if x&highs != 0 {
			return 0, false
		}
		d, l := classify(x)
		w := d | l
		var nextWord uint64 // the byte after the chunk
		if i+8 < len(s) {
			if c := s[i+8]; c >= utf8.RuneSelf {
				return 0, false // a word rune or not: scan decides
			} else if asciiWord[c] != 0 {
				nextWord = 0x80 << 56
			}
		}
		before := w<<8 | prevWord
		runs += bits.OnesCount64(w &^ before)
		// A joiner between two words: rare enough to look for only where
		// some byte stands between two words.
		links := before & (w>>8 | nextWord) &^ w
		if links != 0 {
			links &= zeroBytes(x^'-'*ones) | zeroBytes(x^'_'*ones) | zeroBytes(x^'.'*ones)
		}
		breaks := ^(w | links) & highs
		for links != 0 {
			j := bits.TrailingZeros64(links)
			brk := lastBreak
			if low := breaks & (1<<j - 1); low != 0 {
				brk = i + (63-bits.LeadingZeros64(low))/8
			}
			if lastLink < brk {
				compounds++ // the first joiner of its chain
			}
			lastLink = i + j/8
			links &= links - 1
		}
		if breaks != 0 {
			lastBreak = i + (63-bits.LeadingZeros64(breaks))/8
		}
		prevWord = w >> 56 & 0x80
	}
	return runs + compounds, true
}

// zeroBytes marks, with 0x80, the bytes of v that are 0, and no other.
func zeroBytes(v uint64) uint64 {
	return ^((v&^highs + ^uint64(highs)) | v) & highs
}

// chains calls fn, in the order they stand, for the chains of s (runs of
// ASCII letters and digits and the single joiners between them: what scan
// reads as one compound) that can hand out a term f keeps, each once; s
// is a text countTerms counts (ASCII, no brackets), so scan reads each
// chain alone as it reads it within s. Every such term, less its last
// byte (which stemming may have added), stands in the chain once its
// letters are lowered, and it starts with a letter or digit.
func (f *Focus) chains(s string, sc *scratch, fn func(chain string)) {
	if len(f.needles) == 0 {
		return
	}
	low := foldASCII(sc.fold[:0], s)
	hits := sc.hits[:0]
	for _, n := range f.needles {
		for i := 0; ; {
			j := bytes.Index(low[i:], n)
			if j < 0 {
				break
			}
			hits = append(hits, i+j)
			i += j + 1
		}
	}
	slices.Sort(hits)
	end := -1
	for _, h := range hits {
		if h < end || asciiWord[s[h]] == 0 {
			continue
		}
		var start int
		start, end = chainAt(s, h)
		fn(s[start:end])
	}
	sc.fold, sc.hits = low, hits
}

// chainAt is where the chain around the word byte s[i] starts and ends.
func chainAt(s string, i int) (start, end int) {
	word := func(j int) bool { return j >= 0 && j < len(s) && asciiWord[s[j]] != 0 }
	link := func(j int) bool { return isJoiner(rune(s[j])) && word(j-1) && word(j+1) }
	start = i
	for start > 0 && (word(start-1) || link(start-1)) {
		start--
	}
	end = i
	for end < len(s) && (word(end) || link(end)) {
		end++
	}
	return start, end
}

// foldASCII appends text, ASCII, to b with its letters lowered.
func foldASCII(b []byte, text string) []byte {
	i := 0
	for ; i+8 <= len(text); i += 8 {
		x := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
			uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
		_, l := classify(x)
		b = binary.LittleEndian.AppendUint64(b, x|l>>2) // 0x20 on every letter
	}
	for ; i < len(text); i++ {
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}
