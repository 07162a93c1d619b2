package guard

import (
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

// ruleSpec is one gitleaks rule as transcribed by gitleaksgen.
type ruleSpec struct {
	id, regex, path string
	secretGroup     int
	entropy         float64
	keywords        []string
	allow           []allowSpec
}

// allowSpec is one gitleaks allowlist: a finding it matches is not a
// secret. Path and commit conditions never hold for a document's text.
type allowSpec struct {
	and                       bool
	target                    string
	regexes, stopwords, paths []string
	commits                   bool
}

// The shape of a rule decides where the screen looks for it.
const (
	// inWord: the whole match is one whitespace-free word that holds a
	// keyword (ghp_…, AKIA…, sk_live_…).
	inWord = iota
	// assigned: gitleaks' "keyword … = value" template; the secret is the
	// word after an operator and a keyword stands before it.
	assigned
	// curlFlag: the curl header and user rules; the secret follows a -H or
	// -u flag on a line that starts with curl.
	curlFlag
	// framed: the private key block.
	framed
	// pathOnly: rules gitleaks applies to other file types only
	// (.tf, .yaml, .php, nuget.config); a Markdown document is never one.
	pathOnly
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

// templateOps is the operator group of gitleaks' keyword-assignment template.
const templateOps = `(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

func newRule(s *ruleSpec) *rule {
	r := &rule{spec: s}
	re, err := syntax.Parse(s.regex, syntax.Perl)
	if err != nil {
		panic("guard: gitleaks rule " + s.id + ": " + err.Error())
	}
	r.keys = s.keywords
	if lits := requiredLits(re.Simplify()); len(lits) > 0 {
		r.keys = lits
	}
	switch {
	case s.path != "":
		r.shape = pathOnly
	case strings.HasPrefix(s.id, "curl-"):
		r.shape = curlFlag
	case s.id == "private-key":
		r.shape = framed
	case strings.Contains(s.regex, templateOps):
		r.shape = assigned
		r.minWord = entropyFloor(minLen(secretGroup(re, s.secretGroup)), s.entropy)
		for _, alt := range topAlternatives(s.regex) {
			r.alsoWord = r.alsoWord || !strings.Contains(alt, templateOps)
		}
	default:
		r.shape = inWord
		r.minWord = minLen(core(re.Simplify()))
	}
	return r
}

func (r *rule) compile() {
	r.once.Do(func() {
		r.re = regexp.MustCompile(r.spec.regex)
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
	r.compile()
	for _, m := range r.re.FindAllStringSubmatchIndex(w, -1) {
		match := strings.Trim(w[m[0]:m[1]], "\n")
		secret := match
		if g := r.spec.secretGroup; g > 0 {
			if 2*g+1 < len(m) && m[2*g] >= 0 {
				secret = w[m[2*g]:m[2*g+1]]
			}
		} else {
			for g := 1; 2*g+1 < len(m); g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					secret = w[m[2*g]:m[2*g+1]]
					break
				}
			}
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

// entropyFloor raises a minimum length to the shortest string whose
// entropy can exceed e: n runes carry at most log2(n) bits each.
func entropyFloor(n int, e float64) int {
	if e <= 0 {
		return n
	}
	return max(n, int(math.Floor(math.Exp2(e)))+1)
}

func secretGroup(re *syntax.Regexp, g int) *syntax.Regexp {
	if g == 0 {
		if re.MaxCap() == 0 {
			return re
		}
		// gitleaks takes the first non-empty group: the first one when
		// it cannot be empty, else any of them.
		if c := capture(re, 1); minLen(c) > 0 {
			return c
		}
		out := re
		for i := 1; i <= re.MaxCap(); i++ {
			if c := capture(re, i); c != nil && minLen(c) < minLen(out) {
				out = c
			}
		}
		return out
	}
	return capture(re, g)
}

func capture(re *syntax.Regexp, n int) *syntax.Regexp {
	if re.Op == syntax.OpCapture && re.Cap == n {
		return re
	}
	for _, s := range re.Sub {
		if c := capture(s, n); c != nil {
			return c
		}
	}
	return nil
}

// core drops the boundary context an in-word pattern has at either end
// (\b, ^, (?:[\x60'"\s;]|\\[nr]|$) and the like): what remains is the
// whitespace-free word the match must lie in.
func core(re *syntax.Regexp) *syntax.Regexp {
	if re.Op != syntax.OpConcat {
		return re
	}
	parts := re.Sub
	for len(parts) > 0 && boundary(parts[0]) {
		parts = parts[1:]
	}
	for len(parts) > 0 && boundary(parts[len(parts)-1]) {
		parts = parts[:len(parts)-1]
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: parts}
}

func boundary(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginText, syntax.OpBeginLine, syntax.OpEndText, syntax.OpEndLine, syntax.OpWordBoundary,
		syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		return true
	case syntax.OpCharClass:
		return minLen(re) == 1 && matchesSpace(re)
	case syntax.OpAlternate:
		// (?:[\x60'"\s;]|\\[nr]|$): one or two characters, one way of
		// which is a space or the end.
		edge := false
		for _, s := range re.Sub {
			if minLen(s) > 2 || s.Op == syntax.OpConcat && len(s.Sub) > 2 {
				return false
			}
			edge = edge || boundary(s)
		}
		return edge
	}
	return false
}

func matchesSpace(re *syntax.Regexp) bool {
	for i := 0; i+1 < len(re.Rune); i += 2 {
		if re.Rune[i] <= ' ' && ' ' <= re.Rune[i+1] || re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
			return true
		}
	}
	return false
}

// minLen is the fewest bytes re can match.
func minLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(string(re.Rune))
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n += minLen(s)
		}
		return n
	case syntax.OpAlternate:
		m := math.MaxInt
		for _, s := range re.Sub {
			m = min(m, minLen(s))
		}
		return m
	}
	return 0
}

// requiredLits is a set of literals one of which every match of re
// contains, lower-cased, or nil when there is none worth gating on.
func requiredLits(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpCharClass:
		// [%|]: a small class is a set of one-character literals.
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				if len(out) == 4 {
					return nil
				}
				out = append(out, strings.ToLower(string(c)))
			}
		}
		return out
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLits(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return requiredLits(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []string
		for _, s := range re.Sub {
			if l := requiredLits(s); l != nil && (best == nil || shortest(l) > shortest(best)) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			l := requiredLits(s)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	}
	return nil
}

func shortest(xs []string) int {
	n := math.MaxInt
	for _, x := range xs {
		n = min(n, len(x))
	}
	return n
}

// topAlternatives splits a pattern at its top-level "|".
func topAlternatives(p string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			depth--
		case '[':
			for i++; i < len(p) && p[i] != ']'; i++ {
				if p[i] == '\\' {
					i++
				}
			}
		case '|':
			if depth == 0 {
				out = append(out, p[start:i])
				start = i + 1
			}
		}
	}
	return append(out, p[start:])
}
