//go:build linux && !race

package guard_test

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vivary-dev/vivary-go/guard"
)

// TestLegibleLinear feeds the legibility rule (TextFault, and Escape,
// which walks the same way) the runs a context rule looks back or ahead
// over, at 1× and 4× their size, and fails when the work grows faster than
// the text: a run of tag characters once cost a look back over the whole
// run per character, so 16,384 of them took 24 s. The work is the
// measuring thread's CPU time, the least of three runs, and only the ratio
// is judged, against twice the linear bound (a quadratic scan grows
// 16-fold). Not under -race, whose instrumentation is not the rule's cost.
func TestLegibleLinear(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const flag, tagG, cancel = "🏴", "\U000E0067", "\U000E007F"
	for name, make := range map[string]func(n int) string{
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
		work := func(s string) time.Duration {
			best := time.Duration(1 << 62)
			for range 3 {
				start := threadTime()
				guard.TextFault(s)
				guard.Escape(s)
				best = min(best, threadTime()-start)
			}
			return max(best, time.Microsecond)
		}
		const base = 4 << 10
		small, large := work(make(base)), work(make(4*base))
		if ratio := float64(large) / float64(small); ratio > 8 {
			// Once more, in case the machine took the thread away.
			if small, large = work(make(base)), work(make(4*base)); float64(large)/float64(small) > 8 {
				t.Errorf("%s: 4× the text took %.1f× the work", name, float64(large)/float64(small))
			}
		}
	}
}

// threadTime is the CPU time the calling thread has used: it does not grow
// while other processes hold the cores.
func threadTime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}
