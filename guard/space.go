package guard

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace is Python's str.isspace for one rune, the set the reference's
// \s, strip() and split() use: Unicode White_Space plus the four
// information separators U+001C..U+001F. Go's unicode.IsSpace lacks the
// separators, and RE2's \s is ASCII only; titles, snippets and frontmatter
// must use this set so a pasted NBSP or ideographic space behaves as it
// does in the reference.
func IsSpace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || (r >= '\t' && r <= '\r') || (r >= 0x1c && r <= 0x1f)
	}
	return unicode.Is(unicode.White_Space, r)
}

// SpaceClass and NotSpaceClass are the IsSpace set and its complement as
// RE2 character classes, for patterns ported from the reference's \s, \S.
const (
	SpaceClass    = `[` + spaceRanges + `]`
	NotSpaceClass = `[^` + spaceRanges + `]`
	spaceRanges   = `\t-\r\x1c-\x20\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`
)

// TrimSpace is Python's str.strip(): IsSpace runes removed from both ends.
func TrimSpace(s string) string { return strings.TrimFunc(s, IsSpace) }

// TrimRightSpace is Python's str.rstrip().
func TrimRightSpace(s string) string { return strings.TrimRightFunc(s, IsSpace) }

// CollapseSpace is Python's re.sub(r"\s+", " ", s).strip(): every run of
// IsSpace runes becomes one space, and the ends are trimmed. ASCII text
// takes a byte loop; it runs on the whole body of every search hit.
func CollapseSpace(s string) string {
	b := make([]byte, 0, len(s))
	pending := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) {
				pending = true
			} else {
				if pending && len(b) > 0 {
					b = append(b, ' ')
				}
				pending = false
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if IsSpace(r) {
			pending = true
		} else {
			if pending && len(b) > 0 {
				b = append(b, ' ')
			}
			pending = false
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}
