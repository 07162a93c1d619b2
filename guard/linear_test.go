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
// 8× its size and fails when the work grows faster than the text: a note
// of short "-----BEGIN" lines, or "a:b@" repeated, once took seconds per
// kilobyte. The work is the CPU time of the measuring thread (not the wall
// clock, which a busy machine stretches), the least of several runs taken
// in turn over the sizes (so a spell of load falls on all of them), and
// only the ratio between sizes is judged, against a bound three times the
// linear one: a quadratic scan grows 64-fold at 8×. (Not under -race, whose
// instrumentation is not the screen's cost.)
func TestScreenLinear(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	lockThread()
	defer unlockThread()
	check := func(name string, unit string, f func(string) bool) {
		text := func(n int) string { return repeatTo(unit, n) }
		if ratio := growth(text, f, 1); ratio > maxGrowth && growth(text, f, 5) > maxGrowth {
			t.Errorf("%s: 8× the text took over %d× the work (%.1f×)", name, maxGrowth, ratio)
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

// maxGrowth bounds the work at 8× the text over the work at 1×: three
// times the linear 8, a third of the quadratic 64.
const maxGrowth = 24

// growth is the work f does on text(8×base) over its work on
// text(base), the least of the given number of rounds, each of which
// measures every size in turn. While the 2× text has taken over three
// times the work, the 8× one (which would take minutes on a quadratic
// scan) is not run, and if it still has after the last round the growth
// is taken as the cube of that ratio.
func growth(text func(n int) string, f func(string) bool, rounds int) float64 {
	sizes := [3]string{text(base), text(2 * base), text(8 * base)}
	best := [3]time.Duration{1 << 62, 1 << 62, 1 << 62}
	ratio := func(k int) float64 { return float64(best[k]) / float64(max(best[0], time.Microsecond)) }
	for range rounds {
		best[0] = min(best[0], work(sizes[0], f))
		best[1] = min(best[1], work(sizes[1], f))
		// While 2× looks quadratic the slow 8× size waits: a later round
		// may show that one was a spell of load.
		if ratio(1) <= 3 {
			best[2] = min(best[2], work(sizes[2], f))
		}
	}
	if r := ratio(1); r > 3 {
		return r * r * r
	}
	if best[2] == 1<<62 {
		best[2] = work(sizes[2], f)
	}
	return ratio(2)
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
// over, and fails when the work grows faster than the text: a run of tag
// characters once cost a look back over the whole run per character, so
// 16,384 of them took 24 s. Work is measured and judged as in
// TestScreenLinear.
func TestLegibleLinear(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	lockThread()
	defer unlockThread()
	const flag, tagG, cancel = "🏴", "\U000E0067", "\U000E007F"
	judge := func(s string) bool { TextFault(s); Escape(s); return true }
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
		// text counts in characters; base is in bytes (a tag is four).
		runes := func(n int) string { return text(n / 4) }
		if ratio := growth(runes, judge, 1); ratio > maxGrowth && growth(runes, judge, 5) > maxGrowth {
			t.Errorf("%s: 8× the text took over %d× the work (%.1f×)", name, maxGrowth, ratio)
		}
	}
}
