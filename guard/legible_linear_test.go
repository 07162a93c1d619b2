//go:build !race

package guard

import (
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestLegibleLinear feeds the legibility rule (TextFault, and Escape,
// which walks the same way) the runs a context rule looks back or ahead
// over, at 1× and 4× their size, and fails when the work grows faster than
// the text: a run of tag characters once cost a look back over the whole
// run per character, so 16,384 of them took 24 s. Work is measured as
// TestScreenLinear measures it (thread CPU time, the least of three runs),
// against twice the linear bound (a quadratic scan grows 16-fold).
func TestLegibleLinear(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	lockThread()
	defer unlockThread()
	const flag, tagG, cancel = "🏴", "\U000E0067", "\U000E007F"
	judge := func(s string) bool { TextFault(s); Escape(s); return true }
	least := func(s string) time.Duration {
		best := time.Duration(1 << 62)
		for range 3 {
			best = min(best, work(s, judge))
		}
		return max(best, time.Microsecond)
	}
	for name, text := range map[string]func(n int) string{
		"tags alone":                  func(n int) string { return strings.Repeat(tagG, n) },
		"a flag never cancelled":      func(n int) string { return flag + strings.Repeat(tagG, n) },
		"one long flag":               func(n int) string { return flag + strings.Repeat(tagG, n) + cancel },
		"a flag of capital tags":      func(n int) string { return flag + strings.Repeat("\U000E0041", n) + cancel },
		"flags":                       func(n int) string { return strings.Repeat(flag+tagG+tagG+cancel, n/4) },
		"cancel tags":                 func(n int) string { return flag + strings.Repeat(cancel, n) },
		"language tags":               func(n int) string { return strings.Repeat("\U000E0001"+tagG, n/2) },
		"skin tones before a joiner":  func(n int) string { return "👩" + strings.Repeat("\U0001F3FB", n) + "\u200d💻" },
		"selectors before a joiner":   func(n int) string { return "👩" + strings.Repeat("\ufe0f", n) + "\u200d💻" },
		"marks before a non-joiner":   func(n int) string { return "ک" + strings.Repeat("\u064b", n) + "\u200cک" },
		"joiners after a virama":      func(n int) string { return "क्" + strings.Repeat("\u200d", n) },
		"Persian words":               func(n int) string { return strings.Repeat("ک\u200c", n/2) + "ک" },
		"selectors after ideographs":  func(n int) string { return strings.Repeat("葛\U000E0100", n/2) },
		"number signs before a digit": func(n int) string { return strings.Repeat("\u0600", n) + "1" },
	} {
		const n = 4 << 10
		ratio := func() float64 { return float64(least(text(4*n))) / float64(least(text(n))) }
		// Twice, in case the machine took the thread away the first time.
		if r := ratio(); r > 8 {
			if r = ratio(); r > 8 {
				t.Errorf("%s: 4× the text took %.1f× the work", name, r)
			}
		}
	}
}
