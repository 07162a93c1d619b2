package guard

import (
	"math/rand"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/guard/internal/rulekit"
)

// samples generates one matching sample per screened gitleaks rule: a
// string the rule itself finds (its entropy floor and allowlists
// included), made of random characters.
func samples(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	r := rand.New(rand.NewSource(7))
	for _, rl := range screen().rules {
		if rl.shape == pathOnly {
			continue
		}
		re, err := syntax.Parse(rl.spec.regex, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		re = re.Simplify()
		for try := 0; try < 400; try++ {
			s := strings.Trim(sample(re, r, try%7), "\n")
			if !hasKeyword(s, rl.spec.keywords) {
				// gitleaks wants a keyword somewhere in the text.
				s = rl.spec.keywords[0] + " " + s
			}
			if rl.finds(" " + s + " ") {
				out[rl.spec.id] = s
				break
			}
		}
		if _, ok := out[rl.spec.id]; !ok {
			t.Errorf("no sample found for rule %s", rl.spec.id)
		}
	}
	return out
}

// TestEveryRuleSample puts a sample of each rule into a note and asks the
// screen: the word gate, the operator triggers and the keyword automata
// must never hide a secret the rule finds.
func TestEveryRuleSample(t *testing.T) {
	ss := samples(t)
	if len(ss) < 200 {
		t.Fatalf("only %d rules sampled", len(ss))
	}
	for id, s := range ss {
		for _, note := range []string{
			s,
			"---\ntitle: notes\n---\n# Setup\n\nWe deploy with:\n\n    " + s + "\n\nand nothing else.\n",
			"Some prose first, with words, and commas.\n" + s + "\nMore prose after it.",
		} {
			if !Credential(note) {
				t.Errorf("%s: sample %q not screened in %q", id, s, note)
			}
		}
	}
}

// TestRuleShapes keeps the screen's assumptions about the transcribed
// rules true when they are regenerated from a new gitleaks release.
func TestRuleShapes(t *testing.T) {
	e := screen()
	if e.gate < 11 {
		// forLongWords reads whole eights only for words of 11 or more.
		t.Errorf("the word gate is %d bytes; it needs 11 or more", e.gate)
	}
	if len(e.prefixes) > 8 {
		// Each is a pass over every text.
		t.Errorf("%d key prefixes of short in-word rules are searched: %q", len(e.prefixes), e.prefixes)
	}
	if len(e.curls) != 2 || e.key == nil {
		t.Errorf("want 2 curl rules and the private-key rule, have %d and %v", len(e.curls), e.key != nil)
	}
	shapes := map[int]int{}
	for _, r := range e.rules {
		shapes[r.shape]++
		if r.shape == assigned {
			// keyword, 20 name characters, 3 quotes or spaces, ":::=".
			for _, k := range r.keys {
				if len(k)+26 > lookBack {
					t.Errorf("%s: key %q may stand further than %d bytes before its operator", r.spec.id, k, lookBack)
				}
			}
		}
		if r.shape == inWord || r.shape == assigned {
			for _, k := range r.spec.keywords {
				if k != strings.ToLower(k) {
					t.Errorf("%s: keyword %q is not lower-case", r.spec.id, k)
				}
			}
		}
	}
	if shapes[inWord] < 90 || shapes[assigned] < 90 {
		t.Errorf("rule shapes %v", shapes)
	}
}

// hasKeyword is gitleaks' prefilter: a rule runs only on text holding
// one of its keywords.
func hasKeyword(s string, kws []string) bool {
	for _, k := range kws {
		if strings.Contains(strings.ToLower(s), k) {
			return true
		}
	}
	return len(kws) == 0
}

// TestTranscriptionCurrent: the facts gitleaksgen recorded for each rule
// are what rulekit reads from its pattern today.
func TestTranscriptionCurrent(t *testing.T) {
	for _, s := range gitleaksRules {
		a, err := rulekit.Analyze(s.id, s.regex, s.path, s.secretGroup, s.entropy, s.keywords)
		if err != nil {
			t.Fatal(err)
		}
		if a.Shape != s.shape || a.MinWord != s.minWord || a.AlsoWord != s.alsoWord || strings.Join(a.Keys, "\x00") != strings.Join(s.keys, "\x00") {
			t.Errorf("%s: recorded %d %d %v %q, read %+v; run go run ./guard/internal/gitleaksgen", s.id, s.shape, s.minWord, s.alsoWord, s.keys, a)
		}
	}
}
