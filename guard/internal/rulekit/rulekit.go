// Package rulekit reads a gitleaks rule's pattern for the facts the
// credential screen gates it by: its shape, the shortest word its secret
// can be, and the literals every match holds. gitleaksgen records them in
// guard/gitleaks_rules.go so a cold process parses no pattern it does not
// need; guard's tests check the record against a fresh reading.
package rulekit

import (
	"math"
	"regexp/syntax"
	"strings"
)

// Shapes of a rule.
const (
	// InWord: the whole match is one whitespace-free word that holds a
	// key (ghp_…, AKIA…, sk_live_…).
	InWord = iota
	// Assigned: gitleaks' "keyword … = value" template; the secret is the
	// word after an operator.
	Assigned
	// CurlFlag: the curl header and user rules.
	CurlFlag
	// Framed: the private key block.
	Framed
	// PathOnly: rules gitleaks applies to other file types only (.tf,
	// .yaml, .php, nuget.config); a Markdown document is never one.
	PathOnly
)

// TemplateOps is the operator group of gitleaks' keyword-assignment template.
const TemplateOps = `(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// WordGate is the shortest word the screen's word gate looks at (a word
// of 15 bytes or more always covers one aligned eight whole, so the gate
// reads eights only); an assignment rule's in-word alternative is gated by
// it, and in-word rules with shorter matches are looked for by their keys.
const WordGate = 16

// Rule is what Analyze reads from one rule.
type Rule struct {
	Shape, MinWord int
	Keys           []string
	AlsoWord       bool
}

// Analyze reads a rule's pattern. keys are the literals one of which every
// match holds (lower-cased), or gitleaks' keywords when it needs none.
func Analyze(id, pattern, path string, group int, entropy float64, keywords []string) (Rule, error) {
	var r Rule
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return r, err
	}
	r.Keys = keywords
	if lits := requiredLits(re.Simplify()); len(lits) > 0 {
		r.Keys = lits
	}
	switch {
	case path != "":
		r.Shape = PathOnly
	case strings.HasPrefix(id, "curl-"):
		r.Shape = CurlFlag
	case id == "private-key":
		r.Shape = Framed
	case strings.Contains(pattern, TemplateOps):
		r.Shape = Assigned
		r.MinWord = entropyFloor(MinLen(secretGroup(re, group)), entropy)
		for _, alt := range topAlternatives(pattern) {
			r.AlsoWord = r.AlsoWord || !strings.Contains(alt, TemplateOps)
		}
		if r.AlsoWord {
			r.MinWord = min(r.MinWord, WordGate)
		}
	default:
		r.Shape = InWord
		r.MinWord = MinLen(core(re.Simplify()))
	}
	return r, nil
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
		if c := capture(re, 1); MinLen(c) > 0 {
			return c
		}
		out := re
		for i := 1; i <= re.MaxCap(); i++ {
			if c := capture(re, i); c != nil && MinLen(c) < MinLen(out) {
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
		return MinLen(re) == 1 && matchesSpace(re)
	case syntax.OpAlternate:
		// (?:[\x60'"\s;]|\\[nr]|$): one or two characters, one way of
		// which is a space or the end.
		edge := false
		for _, s := range re.Sub {
			if MinLen(s) > 2 || s.Op == syntax.OpConcat && len(s.Sub) > 2 {
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

// MinLen is the fewest bytes re can match.
func MinLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(string(re.Rune))
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return MinLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * MinLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n += MinLen(s)
		}
		return n
	case syntax.OpAlternate:
		m := math.MaxInt
		for _, s := range re.Sub {
			m = min(m, MinLen(s))
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
		consider := func(l []string) {
			if l != nil && (best == nil || shortest(l) > shortest(best) || shortest(l) == shortest(best) && len(l) < len(best)) {
				best = l
			}
		}
		// A run of parts with few exact spellings ("f" then o1_|m1[ar]_)
		// is a literal set of its own.
		var run []string
		for _, s := range re.Sub {
			consider(requiredLits(s))
			ex := exact(s)
			switch {
			case ex == nil:
				consider(run)
				run = nil
			case run == nil:
				run = ex
			default:
				run = product(run, ex)
				if run == nil {
					run = ex
				}
			}
			consider(run)
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

// exact lists every string re matches when there are at most 16 of them,
// lower-cased, or nil.
func exact(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				if len(out) == 16 {
					return nil
				}
				out = append(out, strings.ToLower(string(c)))
			}
		}
		return out
	case syntax.OpCapture:
		return exact(re.Sub[0])
	case syntax.OpConcat:
		out := []string{""}
		for _, s := range re.Sub {
			ex := exact(s)
			if ex == nil {
				return nil
			}
			if out = product(out, ex); out == nil {
				return nil
			}
		}
		return out
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			ex := exact(s)
			if ex == nil || len(out)+len(ex) > 16 {
				return nil
			}
			out = append(out, ex...)
		}
		return out
	}
	return nil
}

// product is every a followed by every b, or nil past 16.
func product(a, b []string) []string {
	if len(a)*len(b) > 16 {
		return nil
	}
	var out []string
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// keyEdge is what the screen takes as the edge of a key: anything but an
// ASCII letter or digit, or the text's end. gitleaks' own edges (a space,
// a quote, ";", \b) miss a key that ends a sentence, sits in brackets,
// emphasis or a link's query, or is followed by "," or ":".
const (
	leadEdge  = `(?:^|[^0-9A-Za-z])`
	trailEdge = `(?:[^0-9A-Za-z]|$)`
)

// Widen rewrites a rule's pattern so that the boundary context at either
// end of each top-level alternative (\b, (?:^|[…]), (?:[\x60'"\s;]|\\[nr]|$)
// and the like) accepts any character that cannot be part of a key, and
// word boundaries just inside them go. When the pattern has no capture
// group, each widened alternative's core becomes one, so the secret a
// finding reports is the key without the edge characters around it.
func Widen(pattern string) (string, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", err
	}
	lead, _ := syntax.Parse(leadEdge, syntax.Perl)
	trail, _ := syntax.Parse(trailEdge, syntax.Perl)
	wrap := re.MaxCap() == 0
	alts := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		alts = re.Sub
	}
	for i, a := range alts {
		alts[i] = widenOne(a, lead, trail, wrap)
	}
	if re.Op != syntax.OpAlternate {
		re = alts[0]
	}
	return re.String(), nil
}

func widenOne(re, lead, trail *syntax.Regexp, wrap bool) *syntax.Regexp {
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return re
	}
	parts := re.Sub
	hasLead := isEdge(parts[0], true)
	if hasLead {
		parts = parts[1:]
	}
	hasTrail := len(parts) > 1 && isEdge(parts[len(parts)-1], false)
	if hasTrail {
		parts = parts[:len(parts)-1]
	}
	if !hasLead && !hasTrail {
		return re
	}
	core := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: append([]*syntax.Regexp(nil), parts...)}
	dropInnerBounds(core, hasLead, hasTrail)
	var mid *syntax.Regexp = core
	if wrap {
		mid = &syntax.Regexp{Op: syntax.OpCapture, Flags: re.Flags, Sub: []*syntax.Regexp{core}, Cap: 1}
	}
	var out []*syntax.Regexp
	if hasLead {
		out = append(out, lead)
	}
	out = append(out, mid)
	if hasTrail {
		out = append(out, trail)
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: out}
}

// isEdge reports a boundary context at the start (or end) of an
// alternative: \b, or an alternation of one or two characters one way of
// which is the text's edge or a space.
func isEdge(re *syntax.Regexp, start bool) bool {
	if re.Op == syntax.OpWordBoundary {
		return true
	}
	if re.Op != syntax.OpAlternate || !boundary(re) {
		return false
	}
	for _, s := range re.Sub {
		if start && (s.Op == syntax.OpBeginText || s.Op == syntax.OpBeginLine) ||
			!start && (s.Op == syntax.OpEndText || s.Op == syntax.OpEndLine) ||
			s.Op == syntax.OpCharClass && matchesSpace(s) {
			return true
		}
	}
	return false
}

// dropInnerBounds removes the \b at the widened ends of core, through
// captures and concatenations: the new edges decide there.
func dropInnerBounds(re *syntax.Regexp, atStart, atEnd bool) {
	for re != nil {
		switch re.Op {
		case syntax.OpCapture:
			re = re.Sub[0]
			continue
		case syntax.OpConcat:
			if atStart {
				for len(re.Sub) > 1 && re.Sub[0].Op == syntax.OpWordBoundary {
					re.Sub = re.Sub[1:]
				}
				dropInnerBounds(re.Sub[0], true, false)
			}
			if atEnd {
				for len(re.Sub) > 1 && re.Sub[len(re.Sub)-1].Op == syntax.OpWordBoundary {
					re.Sub = re.Sub[:len(re.Sub)-1]
				}
				dropInnerBounds(re.Sub[len(re.Sub)-1], false, true)
			}
		case syntax.OpAlternate:
			for _, s := range re.Sub {
				dropInnerBounds(s, atStart, atEnd)
			}
		}
		return
	}
}
