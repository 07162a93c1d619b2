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
