package guard

import (
	"math"
	"regexp"
	"strings"
	"sync"

	"github.com/vivary-dev/vivary-go/guard/internal/rulekit"
)

// ruleSpec is one gitleaks rule as transcribed by gitleaksgen.
type ruleSpec struct {
	id, regex, path string
	secretGroup     int
	entropy         float64
	keywords        []string
	allow           []allowSpec
	// Worked out from the pattern by rulekit.Analyze.
	shape, minWord int
	keys           []string
	alsoWord       bool
}

// allowSpec is one gitleaks allowlist: a finding it matches is not a
// secret. Path and commit conditions never hold for a document's text.
type allowSpec struct {
	and                       bool
	target                    string
	regexes, stopwords, paths []string
	commits                   bool
}

// The shape of a rule decides where the screen looks for it; gitleaksgen
// works it out from the pattern (guard/internal/rulekit) when it
// transcribes the rules.
const (
	inWord   = rulekit.InWord
	assigned = rulekit.Assigned
	curlFlag = rulekit.CurlFlag
	framed   = rulekit.Framed
	pathOnly = rulekit.PathOnly
)

// rule is a compiled gitleaks rule. Patterns compile on first use: a cold
// call is a fresh process, and most rules never see a candidate.
type rule struct {
	spec    *ruleSpec
	shape   int
	minWord int // the shortest word its secret (in-word: its match) can be
	// keys gate the rule: every match holds one of them (ASCII case
	// aside). They are the literals the pattern requires, or gitleaks'
	// keywords when it requires none; gitleaks' own keywords may stand
	// anywhere in a file, these stand in the match.
	keys []string
	// alsoWord: an assignment rule with an in-word alternative.
	alsoWord bool
	// may, when set, is false for a text the expression cannot match in:
	// a keyword-assignment rule's template's (tmpl), or vaultMay.
	may  func(string) bool
	tmpl *template

	once  sync.Once
	re    *regexp.Regexp
	allow []allowRule
}

type allowRule struct {
	and, never bool
	target     string
	re         *regexp.Regexp
	stopwords  []string
}

func newRule(s *ruleSpec) *rule {
	r := &rule{spec: s, shape: s.shape, minWord: s.minWord, keys: s.keys, alsoWord: s.alsoWord}
	if s.shape == assigned {
		if r.tmpl = newTemplate(s.regex); r.tmpl != nil {
			r.may = r.tmpl.may
		}
	}
	if s.regex == vaultRegex {
		r.may = vaultMay
	}
	return r
}

func (r *rule) compile() {
	r.once.Do(func() {
		pattern, err := rulekit.Widen(r.spec.regex)
		if err != nil {
			panic("guard: rule " + r.spec.id + ": " + err.Error())
		}
		r.re = regexp.MustCompile(pattern)
		r.allow = compileAllow(r.spec.allow)
	})
}

func compileAllow(specs []allowSpec) []allowRule {
	var out []allowRule
	for _, a := range specs {
		ar := allowRule{and: a.and, target: a.target, stopwords: a.stopwords}
		// Path and commit conditions never hold for a document's text: an
		// AND list with one never allows, an OR list ignores them.
		ar.never = a.and && (len(a.paths) > 0 || a.commits)
		if len(a.regexes) > 0 {
			ar.re = regexp.MustCompile(strings.Join(wrap(a.regexes), "|"))
		}
		out = append(out, ar)
	}
	return out
}

func wrap(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = "(?:" + x + ")"
	}
	return out
}

// allowed reports whether an allowlist lets a finding through.
func allowed(lists []allowRule, secret, match, line string) bool {
	for _, a := range lists {
		if a.never {
			continue
		}
		target := secret
		switch a.target {
		case "match":
			target = match
		case "line":
			target = line
		}
		reOK := a.re != nil && target != "" && a.re.MatchString(target)
		stopOK := false
		if len(a.stopwords) > 0 && secret != "" {
			ls := strings.ToLower(secret)
			for _, w := range a.stopwords {
				if strings.Contains(ls, w) {
					stopOK = true
					break
				}
			}
		}
		if a.and {
			ok := true
			if a.re != nil {
				ok = ok && reOK
			}
			if len(a.stopwords) > 0 {
				ok = ok && stopOK
			}
			if ok {
				return true
			}
		} else if reOK || stopOK {
			return true
		}
	}
	return false
}

// finds reports whether the rule finds a secret in w, a window of text
// that line is the surrounding line of. It follows gitleaks' detector:
// the secret is the chosen group (or the first non-empty one), its Shannon
// entropy must exceed the rule's floor, and neither the global nor the
// rule's allowlist may allow it.
func (r *rule) finds(w string) bool {
	if r.may != nil && !r.may(w) {
		return false
	}
	r.compile()
	for _, m := range r.re.FindAllStringSubmatchIndex(w, -1) {
		match := strings.Trim(w[m[0]:m[1]], "\n")
		secret, sa, sb := match, m[0], m[1]
		if g := r.spec.secretGroup; g > 0 {
			if 2*g+1 < len(m) && m[2*g] >= 0 {
				sa, sb = m[2*g], m[2*g+1]
				secret = w[sa:sb]
			}
		} else {
			for g := 1; 2*g+1 < len(m); g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					sa, sb = m[2*g], m[2*g+1]
					secret = w[sa:sb]
					break
				}
			}
		}
		if sa > m[0] && listItemPair(w, sa, sb) || filler(secret) || publicKeyName(r, w, sa) {
			continue
		}
		if r.spec.entropy != 0 && shannon(secret) <= r.spec.entropy {
			continue
		}
		line := lineAround(w, m[0], m[1])
		if allowed(globalAllow(), secret, match, line) || allowed(r.allow, secret, match, line) {
			continue
		}
		return true
	}
	return false
}

var globalAllow = sync.OnceValue(func() []allowRule { return compileAllow(gitleaksGlobal) })

func lineAround(s string, i, j int) string {
	a := strings.LastIndexByte(s[:i], '\n') + 1
	b := strings.IndexByte(s[j:], '\n')
	if b < 0 {
		return s[a:]
	}
	return s[a : j+b]
}

// shannon is the Shannon entropy of s in bits per rune.
func shannon(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	inv := 1 / float64(len(s))
	e := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}
