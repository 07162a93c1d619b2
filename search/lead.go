package search

import (
	"strings"
	"unicode/utf8"
)

// leadWords is about the length of a page's one-paragraph summary.
const leadWords = 40

// lead is the opening prose of a note's body: what a documentation page
// says it is about ("List containers", tldr's "> Archiving utility.", a
// module page's first sentences) before its options, examples and
// sections. It is ranked as a description, as a frontmatter description
// is, so a page about a thing outranks the long pages that only mention
// it. Headings, HTML comments, tables and code are passed over; it ends
// at the first paragraph break once it holds a sentence's worth of words
// (a "Stability: 2" banner alone does not end it), or at leadWords words.
func lead(body string) string {
	var b strings.Builder
	b.Grow(8 * leadWords)
	words := 0
	fence := false
	for line := range strings.Lines(body) {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = !fence
			continue
		case fence || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "|"):
			continue
		case t == "":
			if words >= 8 {
				return b.String()
			}
			continue
		}
		for w := range strings.FieldsSeq(t) {
			if words == leadWords {
				return b.String()
			}
			b.WriteString(w)
			b.WriteByte(' ')
			words++
		}
	}
	return b.String()
}

// headings are the text of a body's ATX headings ("## Set environment
// variables"), one a line, code blocks passed over: a heading says what
// its section is about, so the index counts its words once more.
func headings(body string) string {
	var b strings.Builder
	fence := false
	for line := range strings.Lines(body) {
		if !mayMark(line) {
			continue
		}
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = !fence
		case !fence:
			// One to six #s and a space or the line's end (a #tag is not
			// a heading).
			text := strings.TrimLeft(t, "#")
			if n := len(t) - len(text); n >= 1 && n <= 6 && (text == "" || text[0] == ' ' || text[0] == '\t') {
				b.WriteString(text)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// mayMark reports whether line, spaces trimmed, may start with a heading's
// "#" or a fence: its first byte past the ASCII spaces is one of "#`~", or
// a byte outside ASCII (TrimSpace takes Unicode spaces too). Most lines of
// prose are passed over on their first byte.
func mayMark(line string) bool {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
		case '#', '`', '~':
			return true
		default:
			return c >= utf8.RuneSelf
		}
	}
	return false
}
