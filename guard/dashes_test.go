package guard

import (
	"strings"
	"testing"
)

// TestNextDashesEveryRun: runs of 0 to 12 dashes, two of them, at every
// place among other bytes (a look-alike dash reads as one only after
// securityText), searched from every offset, give what strings.Index does.
func TestNextDashesEveryRun(t *testing.T) {
	for _, fill := range []string{"a", " ", "\n", "\u2010", "\x00"} {
		for n := 0; n <= 12; n++ {
			for m := 0; m <= 12; m++ {
				for gap := 0; gap < 3; gap++ {
					s := fill + strings.Repeat("-", n) + strings.Repeat(fill, gap) + strings.Repeat("-", m) + fill + "BEGIN"
					for i := 0; i <= len(s); i++ {
						if got, want := nextDashes(s, i), nextIndex(s, i, "-----"); got != want {
							t.Fatalf("nextDashes(%q, %d) = %d, strings.Index %d", s, i, got, want)
						}
					}
				}
			}
		}
	}
}
