//go:build !race

package guard

import (
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestScreenLinear feeds the screen each rule's worst case at 1×, 2× and
// 4× its size and fails when the work grows faster than the text: a note
// of short "-----BEGIN" lines, or "a:b@" repeated, once took seconds per
// kilobyte. The work is the CPU time of the measuring thread (not the wall
// clock, which a busy machine stretches), the least of several runs, and
// only the ratio between sizes is judged, against a bound twice the linear
// one: a quadratic scan grows 16-fold at 4×. (Not under -race, whose
// instrumentation is not the screen's cost.)
func TestScreenLinear(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	lockThread()
	defer unlockThread()
	check := func(name string, unit string, f func(string) bool) {
		if ratio := growth(unit, f, 1); ratio > 8 && growth(unit, f, 5) > 8 {
			t.Errorf("%s: 4× the text took over 8× the work (%.1f×)", name, ratio)
		}
	}
	cases, rules := worstCases(t)
	for _, name := range sortedKeys(cases) {
		check(name, cases[name], Credential)
	}
	// The output screen's machine-path rule.
	for name, unit := range map[string]string{"unc starts": `(\\a`, "path starts": " /a", "drives": "(C:/",
		"uris then paths": "https://x)/a", "slashes": "a/b/"} {
		check("machine path: "+name, unit, MachinePath)
	}
	// Each gitleaks rule on its own near misses, glued into one word and
	// after its keyword and an operator.
	for _, id := range sortedKeys(rules) {
		r := rulesByID()[id]
		check(id, rules[id], r.finds)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// base is the 1× size of a worst case: large enough that every size is
// matched by the same regexp engine (Go backtracks on small inputs only,
// at another cost a byte).
const base = 16 << 10

// growth is the work f does at 4× over its work at 1×, the least of the
// given number of runs of each. The 2× text is measured first: when it
// already took over three times the work, the 4× one (which would take
// minutes on a quadratic scan) is not run and the growth is taken as the
// square of that ratio.
func growth(unit string, f func(string) bool, runs int) float64 {
	best := [3]time.Duration{1 << 62, 1 << 62, 1 << 62}
	for k, n := range []int{1, 2, 4} {
		s := repeatTo(unit, n*base)
		for round := 0; round < runs; round++ {
			best[k] = min(best[k], work(s, f))
		}
		if k == 1 && best[1] > 3*best[0] {
			r := float64(best[1]) / float64(max(best[0], time.Microsecond))
			return r * r
		}
	}
	return float64(best[2]) / float64(max(best[0], time.Microsecond))
}

// work is the thread CPU time of f(s), over enough calls to take a quarter
// of a millisecond, per call.
func work(s string, f func(string) bool) time.Duration {
	n := 0
	start := threadCPU()
	for {
		f(s)
		n++
		if d := threadCPU() - start; d > time.Millisecond/4 || n == 64 {
			return d / time.Duration(n)
		}
	}
}

func repeatTo(unit string, n int) string {
	return strings.Repeat(unit, max(1, n/len(unit)))
}

// worstCases are the texts each part of the screen works hardest on,
// each a unit to repeat: the core rules' own, every gitleaks rule's near
// miss (its sample with the last byte changed) spaced and after its
// keyword, and (rules) each rule's near misses glued into one word and
// its keyword with an operator before a near miss.
func worstCases(t *testing.T) (cases, rules map[string]string) {
	cases = map[string]string{
		"key fence lines":     "-----BEGIN x\n",
		"key fence glued":     "-----BEGIN RSA PRIVATE KEY-----",
		"userinfo chain":      "a:b@",
		"url userinfo":        "https://a:{{b}}@",
		"scp chain":           "a:<p>@h:",
		"password chain":      "password:",
		"password values":     "password=x{{",
		"bearer chain":        "Authorization: Bearer ",
		"curl flag line":      "curl -H a:b -u c:d ",
		"curl lines":          "curl -u a:b\n",
		"slack prefixes":      "xoxa",
		"slack legacy":        "xoxo-1-",
		"aws across lines":    "AKIA\n",
		"github across lines": "ghp_1\n",
		"escapes":             `\x67\u0067%5F&#95;\_`,
		"markup":              "a*b<!--c<b>d`",
		"table rows":          "| password | x |\n",
		"table bars":          "|a",
		"split key lines":     "glpat-x\n  ",
		"machine paths":       `(\\a /a/ C:/`,
		"templates":           "{{",
		"uris":                "https://",
		"operators":           "a=b:c,d>e|",
		"emphasis":            "_x_**",
		"dashes":              "‐‐‐‐‐BEGIN ",
		"command lines":       "mysql -p -u sshpass -p docker login -p htpasswd -b ",
		"config lines":        "machine h login u password ",
		"pgpass fields":       "h:1:d:u:",
		"prefix chain":        "sk_live_",
	}
	rules = map[string]string{}
	var spaced, keyed strings.Builder
	for id, s := range samples(t) {
		near := s[:len(s)-1] + "!"
		kw := rulesByID()[id].spec.keywords[0]
		spaced.WriteString(near + " ")
		keyed.WriteString(kw + "= " + near + "\n")
		rules[id] = near + kw + "=" + near
	}
	cases["near misses spaced"] = spaced.String()
	cases["near misses after keywords"] = keyed.String()
	return cases, rules
}

func rulesByID() map[string]*rule {
	m := map[string]*rule{}
	for _, r := range screen().rules {
		m[r.spec.id] = r
	}
	return m
}

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
