package graph

import (
	"strings"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/guard"
)

// The reference reads frontmatter with its own line parser, which splits
// `key: value` at the first colon and strips keys, values and inline-list
// items with Python's str.strip(). YAML separates tokens with space and tab
// only, so a pasted NBSP after a colon (`title:\u00a0Plan`) makes the whole
// frontmatter one plain scalar (E001, every field lost), and a trailing
// ideographic space stays inside an enum value. pySpaces rewrites each run
// of other Python whitespace (guard.IsSpace) that stands where YAML expects
// a separator, to one ASCII space, before the text reaches yaml.v3:
//
//   - around the colon after a mapping key, and after a block-list dash;
//   - at the end of a line, and before a `#` comment;
//   - in an inline list `[a, b]`, after `[` and `,` and before `,` and `]`.
//
// Runs inside a word (`a\u00a0b`) and inside quotes are kept, as strip()
// would keep them. Line numbers do not change.
func pySpaces(fm string) string {
	if !hasExoticSpace(fm) {
		return fm
	}
	lines := strings.Split(fm, "\n")
	for i, l := range lines {
		if hasExoticSpace(l) {
			lines[i] = pySpaceLine(l)
		}
	}
	return strings.Join(lines, "\n")
}

// exotic is Python whitespace that YAML does not treat as a separator.
func exotic(r rune) bool { return r != ' ' && r != '\t' && r != '\n' && guard.IsSpace(r) }

func hasExoticSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			for _, r := range s[i:] {
				if exotic(r) {
					return true
				}
			}
			return false
		}
		if c != ' ' && c != '\t' && c != '\n' && guard.IsSpace(rune(c)) {
			return true
		}
	}
	return false
}

// spaceRun returns the end of the run of guard.IsSpace runes at i, and
// whether it holds an exotic one.
func spaceRun(s string, i int) (int, bool) {
	ex := false
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !guard.IsSpace(r) {
			break
		}
		ex = ex || exotic(r)
		i += n
	}
	return i, ex
}

func pySpaceLine(l string) string {
	var b strings.Builder
	b.Grow(len(l))
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	b.WriteString(l[:i])
	// A block-list item: the dash and its separator.
	if i < len(l) && l[i] == '-' {
		if end, ex := spaceRun(l, i+1); end > i+1 {
			b.WriteByte('-')
			if ex {
				b.WriteByte(' ')
			} else {
				b.WriteString(l[i+1 : end])
			}
			writeValue(&b, l[end:])
			return b.String()
		}
	}
	// A mapping key: up to the first colon followed by a space or the end.
	if i < len(l) && l[i] != '"' && l[i] != '\'' {
		for c := i; c < len(l); c++ {
			if l[c] == '#' || l[c] == '"' || l[c] == '\'' {
				break
			}
			if l[c] != ':' {
				continue
			}
			end, ex := spaceRun(l, c+1)
			if end == c+1 && end < len(l) {
				continue // "http://": not a separator
			}
			key := l[i:c]
			if k := guard.TrimRightSpace(key); k != key && hasExoticSpace(key[len(k):]) {
				key = k
			}
			b.WriteString(key)
			b.WriteByte(':')
			if ex {
				b.WriteByte(' ')
			} else {
				b.WriteString(l[c+1 : end])
			}
			writeValue(&b, l[end:])
			return b.String()
		}
	}
	writeValue(&b, l[i:])
	return b.String()
}

// writeValue copies a value, turning exotic runs at token edges into one
// space. Quoted text is copied as it is.
func writeValue(b *strings.Builder, v string) {
	flow := strings.HasPrefix(v, "[")
	prev := byte(0) // the last non-space byte written; 0 at the value start
	for i := 0; i < len(v); {
		c := v[i]
		if c == '"' || c == '\'' {
			if prev == 0 || (flow && (prev == '[' || prev == ',')) {
				j := closingQuote(v, i)
				b.WriteString(v[i:j])
				prev = v[j-1]
				i = j
				continue
			}
		}
		r, n := utf8.DecodeRuneInString(v[i:])
		if !guard.IsSpace(r) {
			b.WriteString(v[i : i+n])
			prev = c
			i += n
			continue
		}
		end, ex := spaceRun(v, i)
		var next byte
		if end < len(v) {
			next = v[end]
		}
		edge := prev == 0 || end == len(v) || next == '#' ||
			(flow && (prev == '[' || prev == ',' || next == ',' || next == ']'))
		if ex && edge {
			b.WriteByte(' ')
		} else {
			b.WriteString(v[i:end])
		}
		i = end
	}
}

// closingQuote returns the index just past the quoted scalar starting at i
// (or the end of v when it is not closed).
func closingQuote(v string, i int) int {
	q := v[i]
	for j := i + 1; j < len(v); j++ {
		switch {
		case q == '"' && v[j] == '\\':
			j++
		case v[j] == q && q == '\'' && j+1 < len(v) && v[j+1] == '\'':
			j++
		case v[j] == q:
			return j + 1
		}
	}
	return len(v)
}
