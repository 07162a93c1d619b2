package guard

// The screen as it was before the work to make it cheaper (commit
// 12d3d7f), verbatim but for the names: the parts that work changed
// (Credential and its second view, the userinfo scan, the in-word markup
// decoding, the word gate) and what calls them. FuzzScreenAgrees and
// TestScreenAgreesOnCorpora hold the screen to it. Do not edit to match a
// change; a change of meaning is a new reference.

import (
	"encoding/binary"
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Credential reports whether s looks like it holds a credential. It is
// the one screen every output passes (CLI text, CLI --json, MCP) and the
// one every document text passes before any of it is used, so nothing a
// later check would refuse can reach an answer. Two families:
//
//   - the core rules: userinfo in a URL (scheme://user:pass@) or in SCP
//     form (user:pass@host:), AWS, GitHub and Slack token shapes, a private
//     key header, and a secret-named key assigned a value
//     (aws_secret_access_key = …, "password": "…", Authorization: Bearer …);
//   - every rule of gitleaks' default configuration (gitleaks_rules.go),
//     applied as gitleaks applies it, with its entropy floors and
//     allowlists.
//
// A placeholder is not a credential: {{password}}, <token>, ${TOKEN},
// $TOKEN, %TOKEN%, [password], xxxx, ***, and values made only of words
// like "your", "api", "key", "password", "here" are let through, as are
// type words (token: string) and plain settings (auth: required).
func refCredential(s string) bool {
	t := securityText(s)
	if strings.IndexByte(t, '@') >= 0 && (refUserinfo(t) || sqlplusFinds(t)) {
		return true
	}
	if mayHoldToken(t) && (tokenRe.MatchString(t) || tokenAcrossLines(t)) {
		return true
	}
	return screen().refFinds(t) || refRevealed(s, t)
}

// userinfo finds a user:password pair before an @, in a URL or SCP form,
// whose password is not a placeholder.
func refUserinfo(t string) bool {
	for _, re := range []*regexp.Regexp{credURL, scpCred} {
		for _, m := range re.FindAllStringSubmatchIndex(t, -1) {
			if !userinfoPlaceholder(t, m[4], m[5]) {
				return true
			}
		}
	}
	return false
}

// revealed reports a credential that a reader of the raw text would see
// but the screen over the raw text does not, because it is written so that
// the characters differ from the key while the reading does not:
//
//   - encoded: HTML character references (&#95;), percent-escapes (%5F),
//     backslash escapes of YAML, JSON and Markdown (\x67, \u0067, \n, \_
//     and a quoted line continued with "\"), look-alike letters from other
//     scripts (Cyrillic һ for h), and spaces other than the ASCII ones;
//   - broken up by markup inside a word: emphasis (ghp*_*…), code spans,
//     HTML tags and comments;
//   - split over lines whatever stands at the break: trailing spaces,
//     indentation, a list, quote or table prefix, blank lines of a folded
//     YAML scalar, over any number of lines;
//   - a Markdown table row that pairs a secret name with its value.
//
// Each view is screened only when it differs from the raw text, and the
// join only when a token's keyword is in the text, so ordinary notes pay a
// scan or two.
func refRevealed(s, t string) bool {
	d := t
	if mayBeEncoded(s) {
		// decode gives s itself back when it undid nothing: no second
		// normalisation then.
		if dec := refDecode(s); dec != s {
			d = securityText(dec)
			if d != t && refCoreFinds(d) {
				return true
			}
		}
	}
	if strings.IndexByte(d, '|') >= 0 {
		if v := tableView(d); v != d && refCoreFinds(v) {
			return true
		}
	}
	split, netrc := lineEnds(d)
	if netrc {
		return true
	}
	if !split {
		return false
	}
	// A blank line ends a paragraph, or sits inside a folded YAML scalar:
	// both readings are screened.
	for _, overBlank := range []bool{false, true} {
		if j := refJoinSplit(d, overBlank); j != d && refCoreFinds(j) {
			return true
		}
	}
	return false
}

// coreFinds is Credential's screen over security text.
func refCoreFinds(t string) bool {
	if strings.IndexByte(t, '@') >= 0 && (refUserinfo(t) || sqlplusFinds(t)) {
		return true
	}
	if mayHoldToken(t) && tokenRe.MatchString(t) {
		return true
	}
	return screen().refFinds(t)
}

// decode undoes the encodings a reader undoes without thinking.
func refDecode(s string) string {
	if strings.IndexByte(s, '\\') >= 0 {
		s = backslashEsc.ReplaceAllStringFunc(s, func(m string) string {
			switch m[1] {
			case 'x', 'u', 'U':
				n, err := strconv.ParseUint(m[2:], 16, 32)
				if err != nil || !utf8.ValidRune(rune(n)) {
					return m
				}
				return string(rune(n))
			case '\r', '\n':
				return ""
			case 'n':
				return "\n"
			case 't':
				return "\t"
			case 'r':
				return "\r"
			}
			return m[1:]
		})
	}
	if strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	if strings.IndexByte(s, '%') >= 0 {
		s = percentEsc.ReplaceAllStringFunc(s, func(m string) string {
			n, _ := strconv.ParseUint(m[1:], 16, 8)
			if n < 0x21 || n > 0x7e {
				return m
			}
			return string(rune(n))
		})
	}
	// Twice: "a*b*c" has two runs that share the b. The expression reads
	// every text here: the filter the screen puts before it once held
	// back a run of "*" or "`" followed by a tag (a`<b>c), which the
	// reference took over with it.
	s = inWordMarkup.ReplaceAllString(s, "$1$3")
	s = inWordMarkup.ReplaceAllString(s, "$1$3")
	if !isASCII(s) {
		s = strings.Map(func(r rune) rune {
			if m, ok := confusables[r]; ok && r > unicode.MaxASCII {
				return m
			}
			if r > unicode.MaxASCII && IsDash(r) {
				return '-'
			}
			if r > unicode.MaxASCII && (unicode.IsSpace(r) || invisible(r)) {
				return -1 // a no-break or thin space, or a filler, inside a key
			}
			return r
		}, s)
	}
	return s
}

// finds reports whether t (security text) holds a secret by a gitleaks
// rule or the core assignment rule. It looks only where a rule can match:
// in-word rules in words at least as long as their shortest match,
// template rules after an operator followed by a long enough value, the
// curl rules after a -H or -u flag, the key block after "-----". Every
// scan visits each byte a bounded number of times, so a note costs time
// linear in its length whatever it holds (TestScreenLinear).
func (e *engine) refFinds(t string) bool {
	found := false
	refForLongWords(t, e.gate, func(a, b int) bool {
		found = e.wordFinds(t, a, b)
		return found
	})
	if found {
		return true
	}
	for _, c := range e.leads {
		done := 0 // the end of the last word checked: one check a word
		for i := nextByte(t, 0, c); i < len(t); i = nextByte(t, i+1, c) {
			if i < done || !e.prefixAt(t, i) {
				continue
			}
			a, b := i, i
			for a > 0 && t[a-1] > ' ' {
				a--
			}
			for b < len(t) && t[b] > ' ' {
				b++
			}
			done = b
			if e.inWordFinds(t[max(a-1, 0):min(b+1, len(t))]) {
				return true
			}
		}
	}
	if e.opsFind(t) || commandFinds(t) {
		return true
	}
	if i := beginIndex(t); i < len(t) {
		// The key block rule runs once, from the first header on: a run
		// from every "-----BEGIN" would read the rest of the text again
		// for each (a note of such lines made the screen quadratic).
		if e.key.finds(t[i:]) {
			return true
		}
		for ; i < len(t); i = beginIndex2(t, i+5) {
			// The core rule wants the header only.
			if privKey.MatchString(t[i:min(len(t), i+160)]) {
				return true
			}
		}
	}
	return false
}

// forLongWords calls fn with the bounds of every word (a maximal run of
// bytes above the space) of at least n bytes, until fn returns true. It
// reads eight bytes at a time: a word of n >= 11 bytes either covers one
// such eight whole, or ends at least n-7 bytes into one after starting at
// least n-7 bytes before its end. Prose has a space in nearly every eight,
// so most cost a few instructions.
func refForLongWords(t string, n int, fn func(a, b int) bool) {
	if n < 11 {
		slowLongWords(t, 0, n, fn)
		return
	}
	k := n - 7 // each side of a word across two eights
	top := uint64(highs) << (8 * (8 - min(k, 8)))
	low := uint64(highs) >> (8 * (8 - min(k, 8)))
	b := bytesOf(t)
	i, last := 0, 0
	for ; i+8 <= len(b); i += 8 {
		w := nonSep(binary.LittleEndian.Uint64(b[i:]))
		at := -1
		switch {
		case w == highs:
			at = i
		case k <= 7 && w&top == top && i+16 <= len(b) && nonSep(binary.LittleEndian.Uint64(b[i+8:]))&low == low:
			at = i + 7
		default:
			continue
		}
		start, end := at, at+1
		for start > 0 && b[start-1] > ' ' {
			start--
		}
		for end < len(b) && b[end] > ' ' {
			end++
		}
		if end-start >= n && fn(start, end) {
			return
		}
		last = end
		// Go on from the eight that holds the space after the word.
		i = end&^7 - 8
	}
	// The last bytes: from the start of the word they are in, unless
	// that word was reported.
	i = max(i, last)
	for i > last && i < len(b) && b[i] > ' ' && b[i-1] > ' ' {
		i--
	}
	slowLongWords(t, i, n, fn)
}

// refHasInWordMarkup is hasInWordMarkup as it was before its word tests
// read runes: any byte from 0x80, and ".", counted as a word's.
func refHasInWordMarkup(s string) bool {
	word := func(c byte) bool { return isNameByte(c) || c >= 0x80 }
	for _, c := range []byte("*`<") {
		for i := nextByte(s, 0, c); i < len(s); i = nextByte(s, i+1, c) {
			if i == 0 || !word(s[i-1]) {
				continue
			}
			if c == '<' {
				return true
			}
			j := i
			for j < len(s) && (s[j] == '*' || s[j] == '`') {
				j++
			}
			// A change of meaning (commit after 9d6aa58): a run followed
			// by a tag ("AKIA…*<b>…") is let through too. Before, such a
			// key was decoded only when some other markup in the text let
			// the whole text through, and main's narrower filter lost even
			// that; now it always is.
			if j < len(s) && (s[j] == '<' || word(s[j])) {
				return true
			}
			i = j - 1
		}
	}
	return false
}
