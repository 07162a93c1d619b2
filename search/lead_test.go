package search

import (
	"strings"
	"testing"
)

// refHeadings is headings before it passed over lines by their first
// byte (commit 829e1d7), verbatim but for the name.
func refHeadings(body string) string {
	var b strings.Builder
	fence := false
	for line := range strings.Lines(body) {
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

// FuzzHeadingsAgree holds headings to the reference: headings after
// Unicode spaces, fences opened and closed with spaces or CRs before them,
// a #tag, seven #s, headings inside fences.
func FuzzHeadingsAgree(f *testing.F) {
	for _, s := range []string{"# A\n\nx\n## B", " \t## B\r\n", "\u3000# C\n\u00a0```\n# no\n```\n#tag\n####### seven\n# D",
		"\v~~~\n# in\n~~~\n\f#\n", "\u0085# E", "x # F\n   ### G   \n", "```go\n# c\n", "\xff# H\n\xc2\xa0# I"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if got, want := headings(body), refHeadings(body); got != want {
			t.Fatalf("headings(%q) = %q, want %q", body, got, want)
		}
	})
}
