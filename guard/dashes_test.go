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

// TestBeginIndexEveryRun: the header search finds, from every offset, the
// first "-----" directly before "begin" in any case, whatever run of
// dashes it ends (six to nine were missed once).
func TestBeginIndexEveryRun(t *testing.T) {
	first := func(s string, from int) int {
		for p := from; p+10 <= len(s); p++ {
			if s[p:p+5] == "-----" && strings.EqualFold(s[p+5:p+10], "begin") {
				return p
			}
		}
		return len(s)
	}
	for _, word := range []string{"BEGIN", "begin", "BEGI", "-BEGIN"} {
		for n := 0; n <= 14; n++ {
			for m := 0; m <= 14; m++ {
				s := "a" + strings.Repeat("-", n) + word + " x " + strings.Repeat("-", m) + word + "\n"
				for i := 0; i <= len(s); i++ {
					if got, want := beginIndex2(s, i), first(s, i); got != want {
						t.Fatalf("beginIndex2(%q, %d) = %d, want %d", s, i, got, want)
					}
				}
			}
		}
	}
}
