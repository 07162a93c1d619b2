package graph

import (
	"regexp"
	"testing"
)

// isSlug accepts exactly the ids the pattern it stands for accepts.
var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

func FuzzIsSlugAgrees(f *testing.F) {
	for _, s := range []string{"", "a", "dec-0054", "-a", ".a", "_a", "a.b_c-d", "A", "a b", "a\n", "é", "a/b", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isSlug(s), slugPattern.MatchString(s); got != want {
			t.Fatalf("isSlug(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}

// isDate accepts exactly the values the pattern it stands for accepts.
var datePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

func FuzzIsDateAgrees(f *testing.F) {
	for _, s := range []string{"", "2026-08-27", "2026-08-27\n", " 2026-08-27", "2026-8-27", "20260-8-27", "2026/08/27",
		"2026-08-2a", "٢٠٢٦-٠٨-٢٧", "2026-08-27T10:00", "0000-00-00", "9999-99-99", "2026--08-27", "2026-08_27", "2026-08-27 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isDate(s), datePattern.MatchString(s); got != want {
			t.Fatalf("isDate(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
