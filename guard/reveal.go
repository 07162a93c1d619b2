package guard

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// revealed reports a credential in s (whose security text is t; ascii
// says whether s is ASCII) that a reader of the raw text would see but
// the screen over the raw text does not, because it is written so that
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
func revealed(s, t string, ascii bool) bool {
	d := t
	if mayBeEncodedOf(s, ascii) {
		// decode gives s itself back when it undid nothing: no second
		// normalisation then.
		if dec := decode(s); dec != s {
			d = securityText(dec)
			if d != t && coreFinds(d) {
				return true
			}
		}
	}
	if strings.IndexByte(d, '|') >= 0 {
		if v := tableView(d); v != d && coreFinds(v) {
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
	// both readings are screened. They differ only after a blank line
	// meets an open word; where none does, the second is the first again.
	j, blank := joinSplit(d, false)
	if j != d && coreFinds(j) {
		return true
	}
	if !blank {
		return false
	}
	j, _ = joinSplit(d, true)
	return j != d && coreFinds(j)
}

// joinSplit glues a line's last word to the first word of the lines after
// it while that word holds a token's keyword: what stands at each break
// (trailing spaces, indentation, quote, list and table marks, and blank
// lines when overBlank) goes. blank reports a blank line met while a word
// was open: the one place overBlank is read, so without one the other
// reading is the same text.
func joinSplit(t string, overBlank bool) (_ string, blank bool) {
	var b strings.Builder
	b.Grow(len(t))
	open := false
	for i, ln := range strings.Split(t, "\n") {
		ln = strings.TrimRight(ln, " \t\r|")
		if open {
			ln = lineLead.ReplaceAllString(ln, "")
			if ln == "" {
				blank = true
				if overBlank {
					continue // a blank line inside a folded scalar
				}
				b.WriteByte('\n') // a paragraph's end ends the word
				open = false
				continue
			}
		} else if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ln)
		last := ln
		if k := strings.LastIndexAny(ln, " \t"); k >= 0 {
			last = ln[k+1:]
		}
		if open && !strings.ContainsAny(ln, " \t") {
			continue // the whole line went on the word: it may go on further
		}
		open = keyStart(last)
	}
	return b.String(), blank
}

// lineEnds reads the last word of every line, in one pass: split
// reports a line (followed by another) whose last word may start a key,
// netrc a .netrc password (netrcAt) as the last word of a line.
func lineEnds(t string) (split, netrc bool) {
	for i := nextByte(t, 0, '\n'); ; i = nextByte(t, i+1, '\n') {
		e := i
		for e > 0 && (t[e-1] == ' ' || t[e-1] == '\t' || t[e-1] == '\r' || t[e-1] == '|') {
			e--
		}
		a := e
		for a > 0 && !isSpaceByte(t[a-1]) {
			a--
		}
		j := a
		for j > 0 && (t[j-1] == ' ' || t[j-1] == '\t') {
			j--
		}
		if a < e && j >= 8 && t[j-1] == 'd' && netrcAt(t, a, e) {
			// Only a word after "password" is read further.
			return split, true
		}
		if i == len(t) {
			return split, false
		}
		split = split || keyStart(t[a:e])
	}
}

// keyStart reports a word that may be the start of a key: not a plain
// word (it has a digit, "_" or "-", or is upper case) and holds a token's
// keyword.
func keyStart(w string) bool {
	if len(w) < 4 {
		return false
	}
	marked, upper := false, true
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= '0' && c <= '9' || c == '_' || c == '-' {
			marked = true
		}
		if c >= 'a' && c <= 'z' {
			upper = false
		}
	}
	return (marked || upper) && mayHoldKeyword(w)
}

// coreFinds is Credential's screen over security text.
func coreFinds(t string) bool {
	if strings.IndexByte(t, '@') >= 0 && (userinfo(t) || sqlplusFinds(t)) {
		return true
	}
	if mayHoldToken(t) && tokenRe.MatchString(t) {
		return true
	}
	return screen().finds(t)
}

func mayHoldKeyword(t string) bool {
	if mayHoldToken(t) {
		return true
	}
	var set ruleSet
	screen().split.scan(t, 0, &set)
	return !set.empty()
}

// mayBeEncoded is a cheap filter for decode: it changes nothing in text
// without one of these bytes or a non-ASCII rune.
func mayBeEncoded(s string) bool { return mayBeEncodedOf(s, isASCII(s)) }

// mayBeEncodedOf is mayBeEncoded for a caller that knows whether s is
// ASCII: no pass of its own for that.
func mayBeEncodedOf(s string, ascii bool) bool {
	for _, c := range []byte("&%\\*`<") {
		if strings.IndexByte(s, c) >= 0 {
			return true
		}
	}
	return !ascii
}

// hasInWordMarkup is a cheap filter for inWordMarkup: a run of "*" or "`"
// with a word byte before it and a word byte or a tag after it (ghp*_*…,
// a`b`c, AKIA*<b>…), or a "<" right after a word byte. A code span's
// closing backtick after its last word, the common case, is not one. It
// lets through every text the expression can change: a match starts with
// a word rune and a "*", "`" or "<", and a run of "*" and "`" is followed
// by a word rune or by the "<" of a comment or a tag.
func hasInWordMarkup(s string) bool {
	for _, c := range []byte("*`<") {
		for i := nextByte(s, 0, c); i < len(s); i = nextByte(s, i+1, c) {
			if i == 0 || !wordBefore(s, i) {
				continue
			}
			if c == '<' {
				return true
			}
			j, inWord := markupRun(s, i)
			if inWord {
				return true
			}
			i = j - 1
		}
	}
	return false
}

var (
	// lineLead is what stands before a word that goes on from the line
	// above: indentation, quote marks, a table bar or a list marker.
	lineLead     = regexp.MustCompile(`^[ \t]*(?:>[ \t]*)*(?:\|[ \t]*|[-*+][ \t]+|[0-9]{1,3}[.)][ \t]+)?`)
	inWordMarkup = regexp.MustCompile(`([\p{L}\p{N}_\-])((?:[*` + "`" + `]+|<!--[^\n]{0,80}?-->|</?[A-Za-z][^<>\n]{0,80}>)+)([\p{L}\p{N}_\-])`)
	backslashEsc = regexp.MustCompile(`\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|\r?\n[ \t]*|[ntr]|[!-/:-@\[-` + "`" + `{-~])`)
	percentEsc   = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)
)

// stripInWordMarkup is inWordMarkup.ReplaceAllString(s, "$1$3") run over
// only the lines that can hold a match: no match spans a line break (no
// part of the pattern takes one), so the matches of the whole text are
// those of its lines. A match needs a word's last byte right before a
// "*", "`" or "<", and after a run of "*" and "`" a word or a "<". The
// regular expression, the larger part of a note's screen when it ran over
// the whole text, now reads a few lines.
func stripInWordMarkup(s string) string {
	var b strings.Builder
	last := 0 // s[:last] is decided: written to b, or left as it was
	for i := 1; i < len(s); i++ {
		if c := s[i]; c != '*' && c != '`' && c != '<' || !wordBefore(s, i) {
			continue
		}
		if j, inWord := markupRun(s, i); !inWord {
			i = j - 1
			continue
		}
		start := strings.LastIndexByte(s[:i], '\n') + 1
		end := nextByte(s, i, '\n')
		if line := s[start:end]; start >= last {
			if r := inWordMarkup.ReplaceAllString(line, "$1$3"); r != line {
				if b.Len() == 0 {
					b.Grow(len(s))
				}
				b.WriteString(s[last:start])
				b.WriteString(r)
				last = end
			}
		}
		i = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// wordBefore and wordAt report that the rune that ends at s[i], or starts
// at s[j], is one inWordMarkup takes beside markup ([\p{L}\p{N}_\-]).
// They decide what the regular expression would, so that only lines it
// can change are given to it: a code span closed before a full stop
// ("`cut`.") or after a full-width colon ("：`axel`") was most of its work
// on a translated page. A byte that does not decode is let through.
func wordBefore(s string, i int) bool {
	if c := s[i-1]; c < utf8.RuneSelf {
		return markupWordByte(c)
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r == utf8.RuneError || unicode.IsLetter(r) || unicode.Is(unicode.N, r)
}

// markupRun is where the run of "*" and "`" from i ends, and whether a
// word or a tag follows it: only then is it markup inside a word (the
// closing backtick of `code` is not). The filter and the stripping share
// it, so the filter lets through every line the stripping would change.
func markupRun(s string, i int) (end int, inWord bool) {
	j := i
	for j < len(s) && (s[j] == '*' || s[j] == '`') {
		j++
	}
	return j, j < len(s) && (s[j] == '<' || wordAt(s, j))
}

func wordAt(s string, j int) bool {
	if c := s[j]; c < utf8.RuneSelf {
		return markupWordByte(c)
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return r == utf8.RuneError || unicode.IsLetter(r) || unicode.Is(unicode.N, r)
}

func markupWordByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// decode undoes the encodings a reader undoes without thinking.
func decode(s string) string {
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
	if hasInWordMarkup(s) {
		// Twice: "a*b*c" has two runs that share the b.
		s = stripInWordMarkup(stripInWordMarkup(s))
	}
	if !isASCII(s) {
		s = strings.Map(readAs, s)
	}
	return s
}

// readAs is what decode makes of one rune: a look-alike's letter, "-" for
// a dash, nothing for a space or filler inside a key.
func readAs(r rune) rune {
	if r <= unicode.MaxASCII {
		return r // most of a text in another script: no lookup
	}
	if r < 0x10000 {
		blk := readBlocks[r>>8].Load()
		if blk == nil {
			// Built when a text first holds a rune of the block; two
			// decodes that build one at once build the same.
			blk = new([256]rune)
			for k := range blk {
				blk[k] = lookUpReading(r&^0xff | rune(k))
			}
			readBlocks[r>>8].Store(blk)
		}
		return blk[r&0xff]
	}
	return lookUpReading(r)
}

// readBlocks keeps readAs of the Basic Multilingual Plane by blocks of
// 256 runes: a text in another script paid a map lookup and three
// Unicode table searches a rune.
var readBlocks [0x10000 >> 8]atomic.Pointer[[256]rune]

func lookUpReading(r rune) rune {
	if m, ok := confusables[r]; ok {
		return m
	}
	switch {
	case IsDash(r):
		return '-'
	case unicode.IsSpace(r) || invisible(r):
		return -1 // a no-break or thin space, or a filler, inside a key
	}
	return r
}

// tableView writes each Markdown table row's cells as "a : b" where b
// looks like a value and "a ; b" where it does not, so a row
// | password | hunter2 | reads as the assignment it is and a settings
// table's | Passwords | Button | [[…|Set a password]] | does not. Only the
// lines that hold a bar are read; a text without a row is given back.
func tableView(t string) string {
	var b strings.Builder
	last, done := 0, 0
	for i := nextByte(t, 0, '|'); i < len(t); i = nextByte(t, i+1, '|') {
		if i < done {
			continue
		}
		start := strings.LastIndexByte(t[:i], '\n') + 1
		done = nextByte(t, i, '\n')
		row := strings.Trim(t[start:done], " \t\r")
		if len(row) < 2 || row[0] != '|' || row[len(row)-1] != '|' {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(t))
		}
		b.WriteString(t[last:start])
		for k, c := range tableCells(row[1 : len(row)-1]) {
			if k > 0 {
				if cellValue(c) {
					// Spaced on both sides: a value cell before it must
					// not read as "value:".
					b.WriteString(" : ")
				} else {
					b.WriteString(" ; ")
				}
			}
			b.WriteString(c)
		}
		last = done
	}
	if last == 0 {
		return t
	}
	b.WriteString(t[last:])
	return b.String()
}

// tableCells splits a row at its bars, not at an escaped one (\|) or one
// inside a code span or a wiki link ([[page|label]]).
func tableCells(row string) []string {
	var out []string
	start, code, wiki := 0, false, false
	for i := 0; i < len(row); i++ {
		switch c := row[i]; {
		case c == '\\':
			i++
		case c == '`':
			code = !code
		case !code && strings.HasPrefix(row[i:], "[["):
			wiki = true
		case !code && strings.HasPrefix(row[i:], "]]"):
			wiki = false
		case c == '|' && !code && !wiki:
			out = append(out, strings.TrimSpace(row[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(row[start:]))
}

// cellValue reports a table cell that reads as a value: a code span, or a
// word that is not a link or a label (a capitalised plain word: Button,
// String); several words only when the first reads as a password
// (hunter2 (old)), not as a sentence or a name.
func cellValue(c string) bool {
	if len(c) >= 2 && c[0] == '`' && c[len(c)-1] == '`' {
		return true
	}
	if c == "" || link(c) {
		return false
	}
	words := strings.Fields(c)
	first := strings.Trim(words[0], "*_")
	if len(words) > 1 {
		return secretWord(first) || strongSecret(first) || randomCase(first)
	}
	r, n := utf8.DecodeRuneInString(first)
	label := unicode.IsUpper(r) && strings.IndexFunc(first[n:], func(r rune) bool { return !unicode.IsLower(r) }) < 0
	return !label
}
