// Package search ranks documents for a question: a tokenizer that keeps
// identifiers whole and folds English plurals and verb forms, an inverted
// index over five fields that a long-lived process updates per changed
// document, BM25F scoring with a proximity bonus, and best-passage
// snippets. It holds no text beyond the terms, and the snapshot keeps
// none: proximity and passages read the best few documents again.
package search

import (
	"bytes"
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

// asciiWord maps an ASCII letter or digit to its lower case, else 0.
var asciiWord = func() (t [utf8.RuneSelf]byte) {
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
// three word runes with a word rune just outside one side.
func mnemonicBracket(s string, i int) (skip bool) {
	if s[i] == '[' {
		j := strings.IndexByte(s[i:], ']')
		if j < 2 || j > 4 || !allWord(s[i+1:i+j]) {
			return false
		}
		return before(s, i) || after(s, i+j+1)
	}
	k := strings.LastIndexByte(s[:i], '[')
	if k < 0 || i-k < 2 || i-k > 4 || !allWord(s[k+1:i]) {
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
	r, n := utf8.DecodeRuneInString(s[i:])
	return n > 0 && isWordRune(r)
}

// scan calls fn for every term of s in order: each word run, lowered and
// stemmed, at its own position, and for a compound of several runs (an
// identifier such as DEC-0054) the whole compound, lowered and unstemmed,
// at the position of its first run. Brackets that mark letters inside a
// word are read through. Nothing of s is kept: terms are fresh strings.
func scan(s string, fn func(t token)) {
	var word, whole []byte
	var parts, pos int
	wordStart, wholeStart, wholeEnd := -1, -1, -1
	emitWord := func(end int) {
		if len(word) == 0 {
			return
		}
		fn(token{term: stemBytes(word), pos: pos, start: wordStart, end: end})
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
		case r < utf8.RuneSelf && asciiWord[r] != 0:
			if wordStart < 0 {
				wordStart = i
			}
			if wholeStart < 0 {
				wholeStart = i
			}
			word = append(word, asciiWord[r])
			whole = append(whole, asciiWord[r])
		case r >= utf8.RuneSelf && isWordRune(r):
			if wordStart < 0 {
				wordStart = i
			}
			if wholeStart < 0 {
				wholeStart = i
			}
			lr := unicode.ToLower(r)
			word = utf8.AppendRune(word, lr)
			whole = utf8.AppendRune(whole, lr)
		case (r == '[' || r == ']') && mnemonicBracket(s, i):
			// read through: the word goes on
		case isJoiner(r) && len(word) > 0 && after(s, i+n):
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

// Terms are the distinct search terms of a question in order, without
// question stopwords (all of them when nothing else is left). A compound
// that holds a digit (an identifier) is one term; other compounds are
// searched by their parts, so "git-ignore" finds "git ignore". The capsule
// splits a question its own two ways (produce's governedTerms and
// selectionTerms, see there): those feed git grep and claim selection, not
// ranking.
func Terms(text string) []string {
	var all []string
	scan(text, func(t token) {
		if t.parts == 0 {
			all = append(all, string(t.term))
		} else if bytes.ContainsAny(t.term, "0123456789") {
			all = append(all[:len(all)-t.parts], string(t.term))
		}
	})
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
