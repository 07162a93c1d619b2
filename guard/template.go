package guard

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"

	"github.com/vivary-dev/vivary-go/guard/internal/rulekit"
)

// The keyword-assignment rules of gitleaks (rulekit.Assigned) share one
// template: [\w.-]{0,50}? KEYWORD [ \t\w.-]{0,20} [\s'"]{0,3} OPERATOR
// [\x60'"\s=]{0,5} (VALUE) EDGE. Go's engine tries every start position
// of an expression that begins with [\w.-]{0,50}?, so matching one over a
// window cost far more than the window's bytes: generic-api-key, whose
// keywords (key, token, auth, access, api) stand in ordinary prose and
// code, was the larger part of the screen's time on a real page. A
// template's may reads what every match needs in a few bytes around each
// operator, and the expression runs only where it may match.

// templateForms are the two spellings of the template's parts before
// the keyword and between it and the value; templateEnd is its end
// (rulekit.Widen replaces it, and may does not read it).
var templateForms = []struct{ pre, mid string }{
	{`(?i)[\w.-]{0,50}?(?:`, `)(?:[ \t\w.-]{0,20})[\s'"]{0,3}` + rulekit.TemplateOps + `[\x60'"\s=]{0,5}(`},
	{`[\w.-]{0,50}?(?i:[\w.-]{0,50}?(?:`, `)(?:[ \t\w.-]{0,20})[\s'"]{0,3})` + rulekit.TemplateOps + `[\x60'"\s=]{0,5}(`},
}

const templateEnd = `)(?:[\x60'"\s;]|\\[nr]|$)`

// templateGap is what may stand between the keyword and the operator,
// templateLead between the operator and the value ([\s] is Go's ASCII
// \s: no \v).
var templateGap, templateLead = byteSet(" \t\n\f\r'\"_.-" + alnum), byteSet("`'\"\t\n\f\r =")

const alnum = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// template is one rule's keyword and value patterns and what every match
// of them needs, worked out on first use (a cold call is a fresh process,
// and most rules never see a window).
type template struct {
	kwSrc, valSrc string

	once sync.Once
	ok   bool // the patterns were read; otherwise every text may match
	kw   *regexp.Regexp
	// kwMax is the longest keyword; valMin the shortest value, whose
	// bytes are all in val.
	kwMax, valMin int
	val           [256]bool
}

// newTemplate is the template of a rule's pattern, or nil when it is not
// spelled as the template.
func newTemplate(pattern string) *template {
	if !strings.HasSuffix(pattern, templateEnd) {
		return nil
	}
	for _, f := range templateForms {
		body, ok := strings.CutPrefix(pattern[:len(pattern)-len(templateEnd)], f.pre)
		if !ok {
			continue
		}
		if kw, val, ok := strings.Cut(body, f.mid); ok && oneGroup(kw) && oneGroup(val) {
			return &template{kwSrc: kw, valSrc: val}
		}
	}
	return nil
}

// oneGroup reports that s is a pattern that stands as one group between
// the template's parentheses, not "a)(b".
func oneGroup(s string) bool {
	re, err := syntax.Parse("("+s+")", syntax.Perl)
	return err == nil && re.Op == syntax.OpCapture
}

func (p *template) read() {
	kw, err1 := syntax.Parse("(?i:"+p.kwSrc+")", syntax.Perl)
	val, err2 := syntax.Parse("(?i:"+p.valSrc+")", syntax.Perl)
	if err1 != nil || err2 != nil {
		return
	}
	var kwBytes [256]bool
	kwMax, ok1 := asciiBytes(kw, &kwBytes)
	_, ok2 := asciiBytes(val, &p.val)
	if !ok1 || !ok2 || kwMax < 0 {
		return
	}
	for c, in := range kwBytes {
		if in && !templateGap[c] {
			// The keyword and the gap after it are then not one run of
			// gap bytes, which keywordBefore reads.
			return
		}
	}
	p.kw = regexp.MustCompile("(?i:" + p.kwSrc + ")")
	p.kwMax, p.valMin, p.ok = kwMax, rulekit.MinLen(val), true
}

// asciiBytes adds to set every ASCII byte a match of re can hold and gives
// the longest match in ASCII text, or -1 when there is no bound; ok is
// false for an operator it does not know. A rune past ASCII never
// matches in ASCII text, where a template's may is only read.
func asciiBytes(re *syntax.Regexp, set *[256]bool) (longest int, ok bool) {
	add := func(c rune) {
		if c < 0x80 {
			set[c] = true
		}
	}
	switch re.Op {
	case syntax.OpEmptyMatch:
		return 0, true
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			add(c)
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
					add(f)
				}
			}
		}
		return len(re.Rune), true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1] && c < 0x80; c++ {
				add(c)
			}
		}
		return 1, true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		for c := range rune(0x80) {
			add(c)
		}
		return 1, true
	case syntax.OpCapture:
		return asciiBytes(re.Sub[0], set)
	case syntax.OpConcat, syntax.OpAlternate:
		for _, s := range re.Sub {
			n, ok := asciiBytes(s, set)
			if !ok {
				return 0, false
			}
			switch {
			case longest < 0 || n < 0:
				longest = -1
			case re.Op == syntax.OpConcat:
				longest += n
			default:
				longest = max(longest, n)
			}
		}
		return longest, true
	case syntax.OpQuest, syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		n, ok := asciiBytes(re.Sub[0], set)
		switch {
		case !ok:
			return 0, false
		case re.Op == syntax.OpQuest:
			return n, true
		case re.Op == syntax.OpRepeat && re.Max >= 0 && n >= 0:
			return re.Max * n, true
		}
		return -1, true
	}
	return 0, false
}

// may reports whether the template's expression may match in s: it does
// not when no operator has a keyword ending at most 23 gap bytes before
// it and, after one of the operators that start there and at most five
// lead bytes, valMin bytes a value can hold. Outside ASCII the
// expression's case folding takes more (K, the Kelvin sign, is k), so
// such text is always let through.
func (p *template) may(s string) bool {
	p.once.Do(p.read)
	if !p.ok || !isASCII(s) {
		return true
	}
	for q := 0; q < len(s); q++ {
		if templateOpStart[s[q]] && p.valueAfter(s, q) && p.keywordBefore(s, q) {
			return true
		}
	}
	return false
}

var templateOpStart = byteSet("=>:|?,")

// keywordBefore reports a keyword that ends at most 23 bytes before the
// operator at q with only gap bytes between: the keyword's bytes are gap
// bytes too (read checks it), so both lie in the run of gap bytes that
// ends at q, within its last 23+kwMax.
func (p *template) keywordBefore(s string, q int) bool {
	a := q
	for a > 0 && q-a < 23+p.kwMax && templateGap[s[a-1]] {
		a--
	}
	return p.kw.MatchString(s[a:q])
}

// valueAfter reports valMin value bytes after at most five lead bytes
// after one of the operators that may start at q.
func (p *template) valueAfter(s string, q int) bool {
	lengths := templateOpLengths(s, q)
	for n := 1; n <= 4; n++ {
		if lengths&(1<<n) == 0 {
			continue
		}
		for r := q + n; r <= q+n+5 && r <= len(s); r++ {
			v := r
			for v < len(s) && v-r < p.valMin && p.val[s[v]] {
				v++
			}
			if v-r >= p.valMin {
				return true
			}
			if r == len(s) || !templateLead[s[r]] {
				break
			}
		}
	}
	return false
}

// templateOpLengths are the lengths of the operators of
// rulekit.TemplateOps that match at q, as bits (1<<n for a length n).
func templateOpLengths(s string, q int) (lengths uint) {
	at := func(i int, c byte) bool { return i < len(s) && s[i] == c }
	switch s[q] {
	case '=':
		lengths = 1 << 1
		if at(q+1, '>') {
			lengths |= 1 << 2
		}
	case '>', ',':
		lengths = 1 << 1
	case '|':
		if at(q+1, '|') {
			lengths = 1 << 2
		}
	case '?':
		if at(q+1, '=') {
			lengths = 1 << 2
		}
	case ':':
		lengths = 1 << 1
		for n := 1; n <= 3 && at(q+n-1, ':'); n++ {
			if at(q+n, '=') {
				lengths |= 1 << (n + 1)
			}
		}
	}
	return lengths
}
