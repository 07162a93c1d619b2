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
	n, _, ok = countLower(s, nil)
	return n, ok
}

// countLower is countTerms that also appends s, its letters lowered, to
// low unless low is nil (what Focus.chains searches), in the same pass.
func countLower(s string, low []byte) (n int, _ []byte, ok bool) {
	if strings.IndexByte(s, '[') >= 0 || strings.IndexByte(s, ']') >= 0 {
		return 0, low, false
	}
	var (
		runs, compounds int
		prevWord        uint64 // 0x80 in byte 0: the byte before the chunk is a word byte
		lastLink        = -2   // where the last joiner inside a compound stood
	)
	for i := 0; i < len(s); i += 8 {
		var x uint64
		if i+8 <= len(s) {
			x = load8(s[i : i+8])
		} else {
			// The bytes past the end read as 0: neither word nor joiner.
			for j := len(s) - 1; j >= i; j-- {
				x = x<<8 | uint64(s[j])
			}
		}
		if x&highs != 0 {
			return 0, low, false
		}
		d, l := classify(x)
		w := d | l
		if low != nil {
			low = binary.LittleEndian.AppendUint64(low, x|l>>2) // 0x20 on every letter
		}
		var nextWord uint64 // the byte after the chunk
		if i+8 < len(s) {
			if c := s[i+8]; c >= utf8.RuneSelf {
				return 0, low, false // a word rune or not: scan decides
			} else if asciiWord[c] != 0 {
				nextWord = 0x80 << 56
			}
		}
		before := w<<8 | prevWord
		runs += bits.OnesCount64(w &^ before)
		prevWord = w >> 56 & 0x80
		// A joiner between two words. The joiners are from '-' up, and
		// the bytes between words are mostly spaces: only a chunk with
		// another byte from '-' up between two words looks further.
		links := before & (w>>8 | nextWord) &^ w & (x + (0x80-'-')*ones)
		if links == 0 {
			continue
		}
		links &= zeroBytes(x^'-'*ones) | zeroBytes(x^'_'*ones) | zeroBytes(x^'.'*ones)
		for ; links != 0; links &= links - 1 {
			p := i + bits.TrailingZeros64(links)/8
			// The first joiner of its chain, unless only word bytes stand
			// between it and the last one.
			k := p - 1
			for k >= 0 && k > lastLink && asciiWord[s[k]] != 0 {
				k--
			}
			if k != lastLink {
				compounds++
			}
			lastLink = p
		}
	}
	if low != nil {
		low = low[:len(low)-(-len(s)&7)] // the bytes past the end
	}
	return runs + compounds, low, true
}

// zeroBytes marks, with 0x80, the bytes of v that are 0, and no other.
func zeroBytes(v uint64) uint64 {
	return ^((v&^highs + ^uint64(highs)) | v) & highs
}

// chains calls fn, in the order they stand, for the chains of s (runs of
// ASCII letters and digits and the single joiners between them: what scan
// reads as one compound) that can hand out a term f keeps, each once; s
// is a text countTerms counts (ASCII, no brackets), low is s with its
// letters lowered (countLower), and scan reads each chain alone as it
// reads it within s. Every such term, less its last byte (which stemming
// may have added), stands in the chain once its letters are lowered, and
// it starts with a letter or digit.
func (f *Focus) chains(s string, low []byte, sc *scratch, fn func(chain string)) {
	if len(f.needles) == 0 {
		return
	}
	hits := sc.hits[:0]
	for k, n := range f.needles {
		hits = appendHits(hits, low, n, f.rare[k])
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
	sc.hits = hits
}

// appendHits appends to hits where needle stands in low, each place once,
// in order. It looks for the needle's rarest byte, at rare, and compares
// the rest only there: searching for its first byte met a common letter
// ("p" of "privacy") on most lines, and stopped at every one.
func appendHits(hits []int, low, needle []byte, rare int) []int {
	c := needle[rare]
	for i := rare; i < len(low); {
		j := bytes.IndexByte(low[i:], c)
		if j < 0 {
			break
		}
		at := i + j - rare
		if at+len(needle) > len(low) {
			break
		}
		if bytes.Equal(low[at:at+len(needle)], needle) {
			hits = append(hits, at)
		}
		i += j + 1
	}
	return hits
}

// rarest is the offset of the byte of needle least frequent in English
// text (by a fixed ranking; any byte gives the same hits, a rare one
// fewer false starts).
func rarest(needle []byte) int {
	best := 0
	for i, c := range needle {
		if frequency[c] < frequency[needle[best]] {
			best = i
		}
	}
	return best
}

// frequency ranks the bytes of lowered text, higher for more frequent:
// the space, then letters as often as English uses them, a few
// punctuation marks and digits; every other byte ranks 0.
var frequency = func() (f [256]uint8) {
	const common = "qjzx210-,.kvbywgpfmucdlhrsnioate "
	for i := 0; i < len(common); i++ {
		f[common[i]] = uint8(i + 1)
	}
	return f
}()

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

// load8 reads the eight bytes of s, little end first, in one load.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
