package produce

import (
	"regexp"
	"strings"
	"testing"
)

func FuzzCollapseSpace(f *testing.F) {
	for _, s := range []string{"  a \t\n b  ", "\u00a0 a \u00a0", "x\vy", "", " \r\f "} {
		f.Add(s)
	}
	re := regexp.MustCompile(`\s+`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := collapseSpace(s), strings.TrimSpace(re.ReplaceAllString(s, " ")); got != want {
			t.Fatalf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	})
}
