package guard_test

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/guard"
)

// pythonSpace is every code point for which Python's str.isspace() is true
// (printed by CPython 3.11: [hex(c) for c in range(0x110000) if chr(c).isspace()]).
var pythonSpace = []rune{0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
	0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
	0x2028, 0x2029, 0x202f, 0x205f, 0x3000}

func TestIsSpaceIsPythons(t *testing.T) {
	want := map[rune]bool{}
	for _, r := range pythonSpace {
		want[r] = true
	}
	class := regexp.MustCompile(`^` + guard.SpaceClass + `$`)
	not := regexp.MustCompile(`^` + guard.NotSpaceClass + `$`)
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if guard.IsSpace(r) != want[r] {
			t.Errorf("IsSpace(%U) = %v, Python says %v", r, !want[r], want[r])
		}
		if utf8.ValidRune(r) && (class.MatchString(string(r)) != want[r] || not.MatchString(string(r)) == want[r]) {
			t.Errorf("SpaceClass or NotSpaceClass disagree with Python on %U", r)
		}
	}
}

func TestTrimAndCollapse(t *testing.T) {
	for _, c := range []struct{ in, trim, collapse string }{
		{" a ", "a", "a"},
		{"\x1fTitle\x1f", "Title", "Title"},
		{"\u00a0a\u3000\u3000b\u2028", "a\u3000\u3000b", "a b"},
		{"a\x1c\x1d\x1e\x1fb", "a\x1c\x1d\x1e\x1fb", "a b"},
		{"a\u200bb", "a\u200bb", "a\u200bb"}, // zero-width space is Cf, not space
		{"\ufeffa", "\ufeffa", "\ufeffa"},
		{"a\xffb \xfe", "a\xffb \xfe", "a\xffb \xfe"},
		{"", "", ""},
	} {
		if got := guard.TrimSpace(c.in); got != c.trim {
			t.Errorf("TrimSpace(%q) = %q, want %q", c.in, got, c.trim)
		}
		if got := guard.CollapseSpace(c.in); got != c.collapse {
			t.Errorf("CollapseSpace(%q) = %q, want %q", c.in, got, c.collapse)
		}
	}
}

// FuzzCollapseSpace checks the byte loop against two plain definitions:
// split on runs of IsSpace and join with one space (invalid bytes are kept
// as they are), and the reference's re.sub(r"\s+", " ", s).strip().
func FuzzCollapseSpace(f *testing.F) {
	for _, s := range []string{"a  b", "\u00a0x\u3000y\x1f", " \t\n", "a\xffb", "é\u2029ü"} {
		f.Add(s)
	}
	re := regexp.MustCompile(guard.SpaceClass + `+`)
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.Join(strings.FieldsFunc(s, guard.IsSpace), " ")
		got := guard.CollapseSpace(s)
		if got != want {
			t.Fatalf("CollapseSpace(%q) = %q, want %q", s, got, want)
		}
		if sub := guard.TrimSpace(re.ReplaceAllString(s, " ")); got != sub {
			t.Fatalf("CollapseSpace(%q) = %q, regexp gives %q", s, got, sub)
		}
	})
}
