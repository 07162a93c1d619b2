package guard

import (
	"math/rand"
	"regexp/syntax"
	"strings"
	"unicode"

	"github.com/vivary-dev/vivary-go/guard/internal/rulekit"
)

// sample writes a string the pattern matches, choosing characters at
// random (letters and digits where a class allows them), each repetition
// at its minimum plus extra; it stands in for a real secret of that shape.
func sample(re *syntax.Regexp, r *rand.Rand, extra int) string {
	var b strings.Builder
	gen(&b, re, r, extra)
	return b.String()
}

func gen(b *strings.Builder, re *syntax.Regexp, r *rand.Rand, extra int) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && r.Intn(2) == 0 {
				c = unicode.SimpleFold(c)
				if c > 0x7f {
					c = re.Rune[0]
				}
			}
			b.WriteRune(c)
		}
	case syntax.OpCharClass:
		b.WriteRune(pickRune(re.Rune, r))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune(rune("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"[r.Intn(55)]))
	case syntax.OpCapture:
		gen(b, re.Sub[0], r, extra)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			gen(b, s, r, extra)
		}
	case syntax.OpAlternate:
		gen(b, re.Sub[r.Intn(len(re.Sub))], r, extra)
	case syntax.OpQuest:
		if extra > 0 && r.Intn(2) == 0 {
			gen(b, re.Sub[0], r, extra)
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		lo, hi := 0, -1
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
		}
		n := lo
		if rulekit.MinLen(re.Sub[0]) == 1 && lo > 0 {
			n = lo + extra
		}
		if hi >= 0 && n > hi {
			n = hi
		}
		for i := 0; i < n; i++ {
			gen(b, re.Sub[0], r, extra)
		}
	}
}

// pickRune picks from a class, preferring ASCII letters and digits.
func pickRune(ranges []rune, r *rand.Rand) rune {
	var nice, any []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for c := ranges[i]; c <= ranges[i+1] && c <= 0x7e; c++ {
			switch {
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
				nice = append(nice, c)
			case c > ' ':
				any = append(any, c)
			}
		}
	}
	if len(nice) > 0 {
		return nice[r.Intn(len(nice))]
	}
	if len(any) > 0 {
		return any[r.Intn(len(any))]
	}
	return ranges[0]
}
