// Package search ranks documents for a question: a tokenizer that keeps
// identifiers whole and folds English plurals and verb forms, an inverted
// index over five fields that a long-lived process updates per changed
// document, BM25F scoring with a proximity bonus, and best-passage
// snippets. It holds no text beyond the terms, and the snapshot keeps
// none: proximity and passages read the best few documents again.
package search

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one term at a word position, with its byte span in the text.
// term is valid only during the call it is passed to.
type token struct {
	term       []byte
	pos        int
	start, end int
	parts      int // for a whole compound, how many word runs it holds; else 0
}

// asciiWord maps an ASCII letter or digit to its lower case, else 0; every
// byte from utf8.RuneSelf up maps to 0 too, so one lookup answers both.
var asciiWord = func() (t [256]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = byte(c), byte(c)
	}
	return t
}()

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.N, r)
}

// isJoiner reports whether r joins two word runs into one compound
// (decision-0001, file.txt, snake_case) when word runes stand on both sides.
func isJoiner(r rune) bool { return r == '-' || r == '_' || r == '.' }

// mnemonicBracket reports whether the bracket at s[i] marks letters inside
// a word, as in "[c]reate" or "E[x]tract": a bracket pair around at most
// three word runes with a word rune just outside one side. Only the first
// other bracket within four bytes can make a pair, so a text of brackets
// without partners is not searched to its ends at every bracket.
func mnemonicBracket(s string, i int) (skip bool) {
	if s[i] == '[' {
		j := strings.IndexByte(s[i:min(i+5, len(s))], ']')
		if j < 2 || !allWord(s[i+1:i+j]) {
			return false
		}
		return before(s, i) || after(s, i+j+1)
	}
	k := strings.LastIndexByte(s[max(i-4, 0):i], '[')
	if k < 0 {
		return false
	}
	k += max(i-4, 0)
	if i-k < 2 || !allWord(s[k+1:i]) {
		return false
	}
	return before(s, k) || after(s, i+1)
}

func allWord(s string) bool {
	for _, r := range s {
		if !isWordRune(r) {
			return false
		}
	}
	return s != ""
}

func before(s string, i int) bool {
	r, n := utf8.DecodeLastRuneInString(s[:i])
	return n > 0 && isWordRune(r)
}

func after(s string, i int) bool {
	if i < len(s) && s[i] < utf8.RuneSelf {
		return asciiWord[s[i]] != 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return n > 0 && isWordRune(r)
}

// scan calls fn for every term of s in order: each word run, lowered and
// stemmed, at its own position, and for a compound of several runs (an
// identifier such as DEC-0054) the whole compound, lowered and unstemmed,
// at the position of its first run. Brackets that mark letters inside a
// word are read through. Nothing of s is kept: a term is the scanner's own
// lowered copy, valid only while fn runs.
func scan(s string, fn func(t token)) {
	var sc scanner
	sc.scan(s, fn)
}

// scanner is scan with buffers kept from one text to the next.
type scanner struct {
	word  []byte // the word run so far, lowered
	whole []byte // the compound's runs and joiners, once a joiner is seen
	// firsts, when set, says which first bytes a term the caller looks
	// for can start with (non-zero): a word that starts otherwise (and a
	// compound whose first word does) is handed out empty, because the
	// caller only counts it, and its bytes are passed over, not lowered
	// and copied. Stemming keeps a word's first byte, so this changes no
	// term the caller looks for; a word inside a compound the caller may
	// look for is still copied, for the compound's term.
	firsts *[256]uint64
}

// scan is the package's scan. A run of ASCII letters and digits, nearly
// every word of a note, is lowered in one tight loop, and bytes between
// words are passed over; only a rune outside ASCII, a bracket or a joiner
// takes the general path. A compound's text is gathered only once a
// joiner shows there is one.
func (sc *scanner) scan(s string, fn func(t token)) {
	word, whole := sc.word[:0], sc.whole[:0]
	var parts, pos int
	wordStart, wholeStart, wholeEnd := -1, -1, -1
	// letters says word holds only the letters a-z, the words stemBytes
	// folds.
	letters := false
	// skip says the word being read is only counted; wholeSkip says the
	// same of the compound it belongs to (see firsts).
	skip, wholeSkip := false, false
	unwanted := func(b byte) bool { return sc.firsts != nil && sc.firsts[b] == 0 }
	// emit hands out the word that ended at end; joined says a joiner
	// follows it, so a compound goes on.
	emit := func(end int, joined bool) {
		if parts == 0 {
			wholeStart = wordStart
		}
		if !wholeSkip && (joined || parts > 0) {
			whole = append(whole, word...)
		}
		term := word
		if skip {
			term = word[:0]
		} else if letters && len(word) > 3 && !unwanted(word[0]) {
			term = stemLetters(word)
		}
		fn(token{term: term, pos: pos, start: wordStart, end: end})
		pos++
		parts++
		word = word[:0]
		wordStart, skip = -1, false
		wholeEnd = end
	}
	endCompound := func() {
		if parts > 1 {
			term := whole
			if wholeSkip {
				term = whole[:0]
			}
			fn(token{term: term, pos: pos - parts, start: wholeStart, end: wholeEnd, parts: parts})
		}
		parts, whole, wholeSkip = 0, whole[:0], false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if asciiWord[c] != 0 {
			if wordStart < 0 {
				wordStart, letters = i, true
				// A compound's later word is copied unless the compound
				// is only counted.
				skip = unwanted(asciiWord[c]) && (parts == 0 || wholeSkip)
				if parts == 0 {
					wholeSkip = skip
				}
			}
			var digits bool
			if skip {
				i, digits = skipRun(s, i)
			} else {
				word, i, digits = appendRun(word, s, i)
			}
			letters = letters && !digits
			continue
		}
		if c < utf8.RuneSelf && wordStart < 0 && parts == 0 && c != '[' && c != ']' {
			i++ // between words: nothing to end
			continue
		}
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r >= utf8.RuneSelf && isWordRune(r):
			if wordStart < 0 {
				wordStart, letters = i, true
				if parts == 0 {
					wholeSkip = false
				}
			}
			lr := unicode.ToLower(r)
			letters = letters && 'a' <= lr && lr <= 'z'
			if !skip {
				word = utf8.AppendRune(word, lr)
			}
		case (r == '[' || r == ']') && mnemonicBracket(s, i):
			// read through: the word goes on
		case isJoiner(r) && wordStart >= 0 && after(s, i+n):
			emit(i, true)
			if !wholeSkip {
				whole = append(whole, byte(r))
			}
		default:
			if wordStart >= 0 {
				emit(i, false)
			}
			endCompound()
		}
		i += n
	}
	if wordStart >= 0 {
		emit(len(s), false)
	}
	endCompound()
	sc.word, sc.whole = word, whole
}

// Terms are the distinct search terms of a question in order, without
// question stopwords (all of them when nothing else is left). A compound
// that holds a digit (an identifier) is one term; other compounds are
// searched by their parts, so "git-ignore" finds "git ignore". The capsule
// splits a question its own two ways (package capsule's governedTerms
// and selectionTerms, see there): those feed git grep and claim selection, not
// ranking.
func Terms(text string) []string {
	all := words(text)
	var kept []string
	seen := map[string]bool{}
	for _, t := range all {
		if !stopwords[t] && !seen[t] {
			seen[t] = true
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		for _, t := range all {
			if !seen[t] {
				seen[t] = true
				kept = append(kept, t)
			}
		}
	}
	return kept
}

// words are the terms of text in order, stopwords included.
func words(text string) []string {
	var all []string
	scan(text, func(t token) {
		if t.parts == 0 {
			all = append(all, string(t.term))
		} else if bytes.ContainsAny(t.term, "0123456789") {
			all = append(all[:len(all)-t.parts], string(t.term))
		}
	})
	return all
}

// nameKey is what an id, a title or a question that may be one is matched
// whole by: all its words, stopwords too (kubectl-get is not kubectl),
// joined by "-".
// It is strings.Join(words(text), "-") built in one buffer: every note's
// id and title are keyed on the read pass.
func nameKey(text string) string {
	var buf [128]byte
	b := buf[:0]
	var at [16]int
	starts := at[:0] // where each word of b starts
	scan(text, func(t token) {
		if t.parts != 0 {
			if !bytes.ContainsAny(t.term, "0123456789") {
				return
			}
			// An identifier replaces the words it is made of.
			k := len(starts) - t.parts
			b, starts = b[:max(starts[k]-1, 0)], starts[:k]
		}
		if len(starts) > 0 {
			b = append(b, '-')
		}
		starts = append(starts, len(b))
		b = append(b, t.term...)
	})
	return string(b)
}

// yieldingIn are the yielding stopwords of a question (see yielding), in
// order, each once: the words a search also looks up as names.
func yieldingIn(text string) []string {
	var out []string
	scan(text, func(t token) {
		if w := string(t.term); t.parts == 0 && yielding[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	})
	return out
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// appendRun appends to word the run of ASCII letters and digits that
// starts at s[i], lowered, and returns where the run ends and whether it
// holds a digit. It reads eight bytes at a time: a run is found, lowered
// and copied without a branch per byte.
func appendRun(word []byte, s string, i int) (_ []byte, end int, digits bool) {
	for i+8 <= len(s) {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		d, l := classify(x)
		stop := ^(d | l) & highs // the bytes that end the run
		// Setting 0x20 lowers a letter and keeps a digit; the bytes past
		// the run's end are cut off again.
		word = binary.LittleEndian.AppendUint64(word, x|0x20*ones)
		if stop == 0 {
			digits = digits || d != 0
			i += 8
			continue
		}
		n := bits.TrailingZeros64(stop) / 8
		word = word[:len(word)-8+n]
		digits = digits || d&(1<<(8*n)-1) != 0
		return word, i + n, digits
	}
	for ; i < len(s); i++ {
		c := asciiWord[s[i]]
		if c == 0 {
			break
		}
		digits = digits || c <= '9'
		word = append(word, c)
	}
	return word, i, digits
}

// skipRun is appendRun without the copy: where the run that starts at
// s[i] ends, and whether it holds a digit.
func skipRun(s string, i int) (end int, digits bool) {
	for i+8 <= len(s) {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		d, l := classify(x)
		stop := ^(d | l) & highs
		if stop == 0 {
			digits = digits || d != 0
			i += 8
			continue
		}
		n := bits.TrailingZeros64(stop) / 8
		return i + n, digits || d&(1<<(8*n)-1) != 0
	}
	for ; i < len(s); i++ {
		c := asciiWord[s[i]]
		if c == 0 {
			break
		}
		digits = digits || c <= '9'
	}
	return i, digits
}

// classify marks, with 0x80, the bytes of x that are ASCII digits (d) and
// ASCII letters (l). Adding to a byte below 0x80 sets its high bit when
// it reaches a bound and carries into no other byte.
func classify(x uint64) (d, l uint64) {
	ascii := ^x & highs
	x &^= highs
	d = (x + (0x80-'0')*ones) &^ (x + (0x7f-'9')*ones)
	y := x | 0x20*ones // upper case letters to lower, and nothing else into a-z
	l = (y + (0x80-'a')*ones) &^ (y + (0x7f-'z')*ones)
	return d & ascii, l & ascii
}
