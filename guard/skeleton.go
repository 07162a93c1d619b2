package guard

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Skeleton is the form names are compared in, so that a look-alike of a
// secret name is that name: NFKD (full-width forms, ligatures, math
// letters, superscripts to their plain letters), combining marks and
// invisible format characters (zero-width spaces and joiners, soft
// hyphens, direction marks) removed, Unicode confusables mapped to the
// Latin letter they imitate (UTS #39: Cyrillic, Greek, Armenian, small
// capitals, dotless i, stroked letters; 0 as o and 1 as l), and case
// folded. Two names with the same skeleton look alike to a reader.
func Skeleton(s string) string {
	if isASCII(s) {
		// NFKD and folding are lower-casing on ASCII; only 0 and 1 are
		// look-alikes in it.
		l := Lower(s)
		if strings.IndexByte(l, '0') < 0 && strings.IndexByte(l, '1') < 0 {
			return l
		}
		return digitLooks.Replace(l)
	}
	d := norm.NFKD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if m, ok := confusables[r]; ok {
			r = m
		} else if IsDash(r) {
			r = '-'
		} else if unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc, unicode.Cf, unicode.Cc) || unicode.Is(unicode.Variation_Selector, r) || invisible(r) {
			continue
		}
		b.WriteRune(r)
	}
	f := folder.String(b.String())
	// Folding can make new look-alikes (Σ to σ) and new decompositions.
	out := []rune(norm.NFKD.String(f))
	n := 0
	for _, r := range out {
		if unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc, unicode.Cf) {
			continue
		}
		if m, ok := confusables[r]; ok {
			r = unicode.ToLower(m)
		}
		out[n] = r
		n++
	}
	return string(out[:n])
}

var (
	folder     = cases.Fold()
	digitLooks = strings.NewReplacer("0", "o", "1", "l")
)

// confusables maps look-alikes to the Latin letter they imitate
// (from UTS #39's confusables list, the letters a name can be spelt with):
// the common ones by hand, the rest from uts39Looks.
var confusables = func() map[rune]rune {
	m := map[rune]rune{}
	add := func(from, to string) {
		f, t := []rune(from), []rune(to)
		if len(f) != len(t) {
			panic("guard: confusables table out of step")
		}
		for i := range f {
			m[f[i]] = t[i]
		}
	}
	// Cyrillic
	add("аеорсухіјѕԁԛԝһӏɡүҽвкмнтпьзг", "aeopcyxijsdqwhlgyebkmhtnb3r")
	add("АВЕКМНОРСТУХЅІЈԚԜҺӀҮԀЗ", "ABEKMHOPCTYXSIJQWHlYD3")
	// Greek
	add("αβγεηικνορτυχωϲϳ", "abyenikvoptuxwcj")
	add("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹͿ", "ABEZHIKMNOPTYXCJ")
	add("ѵѴ", "vV")
	// Armenian
	add("օսցհոզ", "oughnq")
	// Cherokee (its small letters fold to these capitals)
	add("ᎠᎡᎢᎥᎩᎪᎫᎬᎳᎷᎻᏀᏂᏃᏏᏒᏔᏚᏞᏟᏢᏦᏴᏙ", "DRTiYAJEWMHGhZbRWSLCPKBV")
	// small capitals and other Latin look-alikes
	add("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ", "abcdefghijklmnoprstuvwyz")
	add("ıȷɑɩʋøđħłŧƀɨʉƈɗ", "ijaivodhltbiucd")
	// digits read as letters
	add("01", "ol")
	// and every other one-character look-alike UTS #39 lists
	for to, from := range uts39Looks {
		for _, r := range from {
			if _, ok := m[r]; !ok {
				m[r] = to
			}
		}
	}
	return m
}()

// invisible reports a letter or symbol that draws nothing: the Hangul
// fillers and the other default-ignorable code points that are not format
// characters, and the blank braille pattern. "sec\u3164ret" reads as
// "secret" with a gap no wider than a kerning slip.
func invisible(r rune) bool {
	return r == 0x2800 || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}
