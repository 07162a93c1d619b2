package search

// The tokenizer and stemmer as they were before the fast paths (commit
// 66f0d7b), verbatim but for the names: the reference FuzzScanAgrees holds
// scan and stemBytes to. Do not edit to match a change; a change of
// meaning is a new reference.

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// refASCIIWord maps an ASCII letter or digit to its lower case, else 0.
var refASCIIWord = func() (t [utf8.RuneSelf]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = byte(c), byte(c)
	}
	return t
}()

func refIsWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.N, r)
}

// isJoiner reports whether r joins two word runs into one compound
// (decision-0001, file.txt, snake_case) when word runes stand on both sides.
func refIsJoiner(r rune) bool { return r == '-' || r == '_' || r == '.' }

// mnemonicBracket reports whether the bracket at s[i] marks letters inside
// a word, as in "[c]reate" or "E[x]tract": a bracket pair around at most
// three word runes with a word rune just outside one side.
func refMnemonicBracket(s string, i int) (skip bool) {
	if s[i] == '[' {
		j := strings.IndexByte(s[i:], ']')
		if j < 2 || j > 4 || !refAllWord(s[i+1:i+j]) {
			return false
		}
		return refBefore(s, i) || refAfter(s, i+j+1)
	}
	k := strings.LastIndexByte(s[:i], '[')
	if k < 0 || i-k < 2 || i-k > 4 || !refAllWord(s[k+1:i]) {
		return false
	}
	return refBefore(s, k) || refAfter(s, i+1)
}

func refAllWord(s string) bool {
	for _, r := range s {
		if !refIsWordRune(r) {
			return false
		}
	}
	return s != ""
}

func refBefore(s string, i int) bool {
	r, n := utf8.DecodeLastRuneInString(s[:i])
	return n > 0 && refIsWordRune(r)
}

func refAfter(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	return n > 0 && refIsWordRune(r)
}

// scan calls fn for every term of s in order: each word run, lowered and
// stemmed, at its own position, and for a compound of several runs (an
// identifier such as DEC-0054) the whole compound, lowered and unstemmed,
// at the position of its first run. Brackets that mark letters inside a
// word are read through. Nothing of s is kept: terms are fresh strings.
func refScan(s string, fn func(t token)) {
	var word, whole []byte
	var parts, pos int
	wordStart, wholeStart, wholeEnd := -1, -1, -1
	emitWord := func(end int) {
		if len(word) == 0 {
			return
		}
		fn(token{term: refStemBytes(word), pos: pos, start: wordStart, end: end})
		pos++
		parts++
		word = word[:0]
		wordStart = -1
		wholeEnd = end
	}
	endCompound := func() {
		if parts > 1 {
			fn(token{term: bytes.TrimRight(whole, "-_."), pos: pos - parts, start: wholeStart, end: wholeEnd, parts: parts})
		}
		parts, whole, wholeStart = 0, whole[:0], -1
	}
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r < utf8.RuneSelf && refASCIIWord[r] != 0:
			if wordStart < 0 {
				wordStart = i
			}
			if wholeStart < 0 {
				wholeStart = i
			}
			word = append(word, refASCIIWord[r])
			whole = append(whole, refASCIIWord[r])
		case r >= utf8.RuneSelf && refIsWordRune(r):
			if wordStart < 0 {
				wordStart = i
			}
			if wholeStart < 0 {
				wholeStart = i
			}
			lr := unicode.ToLower(r)
			word = utf8.AppendRune(word, lr)
			whole = utf8.AppendRune(whole, lr)
		case (r == '[' || r == ']') && refMnemonicBracket(s, i):
			// read through: the word goes on
		case refIsJoiner(r) && len(word) > 0 && refAfter(s, i+n):
			emitWord(i)
			whole = append(whole, byte(r))
		default:
			emitWord(i)
			endCompound()
		}
		i += n
	}
	emitWord(len(s))
	endCompound()
}

func refIsVowel(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }

func refHasVowel(s string) bool {
	for i := 0; i < len(s); i++ {
		if refIsVowel(s[i]) || s[i] == 'y' && i > 0 {
			return true
		}
	}
	return false
}

// stem folds English plurals and verb forms (files, copies, created,
// running) onto one term, lightly: it only needs to send the forms a
// question and a note use for one word to the same term, not to find
// linguistic roots. Identifiers, numbers, short words and anything not
// plain ASCII letters are left as they are.
func refStem(w string) string { return string(refStemBytes([]byte(w))) }

func refSuffix(w []byte, s string) bool { return len(w) >= len(s) && string(w[len(w)-len(s):]) == s }

// stemBytes is stem in place: the result shares w's array.
func refStemBytes(w []byte) []byte {
	if len(w) <= 3 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	switch {
	case refSuffix(w, "ies") && len(w) > 4:
		w = append(w[:len(w)-3], 'y')
	case refSuffix(w, "sses"), refSuffix(w, "xes"), refSuffix(w, "ches"), refSuffix(w, "shes"), refSuffix(w, "zes"):
		w = w[:len(w)-2]
	case refSuffix(w, "s") && !refSuffix(w, "ss") && !refSuffix(w, "us") && !refSuffix(w, "is") && !refSuffix(w, "as"):
		w = w[:len(w)-1]
	}
	verb := false
	switch {
	case refSuffix(w, "ly") && len(w) >= 7:
		w = w[:len(w)-2] // quickly, recursively
	case refSuffix(w, "able") && len(w) >= 8:
		w = w[:len(w)-4] // executable, readable
	case refSuffix(w, "ied") && len(w) > 4:
		w = append(w[:len(w)-3], 'y')
	case refSuffix(w, "ing") && len(w) > 4:
		w, verb = refUnverb(w, 3)
	case refSuffix(w, "ed"):
		w, verb = refUnverb(w, 2)
	}
	if l := len(w); verb && l > 3 && w[l-1] == w[l-2] && !refIsVowel(w[l-1]) && w[l-1] != 'l' && w[l-1] != 's' && w[l-1] != 'z' {
		w = w[:l-1] // running, stopped
	}
	if len(w) > 4 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1] // create, creates, created, creating
	}
	return w
}

// unverb drops a verb ending of n bytes. A short stem that ends in a
// single consonant after a vowel lost an "e" (using, moved, making).
func refUnverb(w []byte, n int) ([]byte, bool) {
	base := w[:len(w)-n]
	if !refHasVowel(string(base)) {
		return w, false
	}
	if len(base) >= 4 {
		return base, true
	}
	if l := len(base); l >= 2 && !refIsVowel(base[l-1]) && refIsVowel(base[l-2]) {
		return append(base, 'e'), false
	}
	return w, false
}
