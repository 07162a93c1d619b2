package guard

import (
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Security text outside ASCII, one rune at a time. The whole text's NFKD
// is every rune's own decomposition, in order, with each run of
// non-starters (canonical combining class above 0) sorted by class (and,
// past 30 of them, a grapheme joiner put in). Starters keep their order,
// so when no non-starter survives writeSecurityRune (each is a mark, and
// marks are dropped) the security text of a text is the concatenation of
// its runes' security texts: what a reordering or a joiner changes is
// dropped anyway. A rune whose decomposition would keep a non-starter
// (none does in the tables this is built with; TestRuneViewsExact reads
// them all) sends the whole text the long way, as does invalid UTF-8,
// which the norm package copies as it is. The views of the Basic
// Multilingual Plane are kept by blocks of 256, built when a text first
// holds one of their runes: a translated note then costs a table lookup a
// rune instead of a normal form and three Unicode table searches.

// notExact marks a rune whose view is not exact alone (no rune's view is
// invalid UTF-8, as this is).
const notExact = "\xff"

var viewBlocks [0x10000 >> 8]atomic.Pointer[[256]string]

// runeView is what security text keeps of r read alone, or notExact.
func runeView(r rune) string {
	if r >= 0x10000 {
		return buildView(r)
	}
	blk := viewBlocks[r>>8].Load()
	if blk == nil {
		// Two screens that build one block at once build the same.
		blk = new([256]string)
		for k := range blk {
			blk[k] = buildView(r&^0xff | rune(k))
		}
		viewBlocks[r>>8].Store(blk)
	}
	return blk[r&0xff]
}

func buildView(r rune) string {
	var b strings.Builder
	for _, q := range norm.NFKD.String(string(r)) {
		n := b.Len()
		writeSecurityRune(&b, q)
		if b.Len() > n && norm.NFKD.PropertiesString(string(q)).CCC() != 0 {
			return notExact
		}
	}
	return b.String()
}

// securityRunes is securityText of a text outside ASCII.
func securityRunes(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			// What writeSecurityRune does with ASCII, without its table
			// lookups: most of a text in another script is ASCII.
			i++
			switch {
			case c == '\n':
				b = append(b, '\n')
			case isSpaceByte(c):
				b = append(b, ' ')
			case !isControlByte(c):
				b = append(b, c)
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return securityNorm(s)
		}
		i += n
		v := runeView(r)
		if v == notExact {
			return securityNorm(s)
		}
		b = append(b, v...)
	}
	return string(b)
}
