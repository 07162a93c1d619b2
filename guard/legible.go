package guard

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Invisible characters are part of the ordinary spelling of many scripts:
// Persian writes a zero-width non-joiner inside words (نامه‌ها), Indic
// scripts put a joiner or non-joiner after a virama, Khmer, Thai, Lao,
// Myanmar and Tibetan mark word breaks with a zero-width space, emoji
// join with a zero-width joiner (👩‍💻) and flags of regions are spelt
// with tag characters (🏴󠁧󠁢󠁳󠁣󠁴󠁿). Such text is as legible as any other.
// The same characters beside Latin, Greek or Cyrillic letters, at an end,
// or doubled draw nothing, and only make one name display as another
// (no\u200Btes.md shows as notes.md); the direction controls reorder
// what is shown (U+202E makes "dm.txt" read "txt.md"); tag characters
// outside a flag carry text no one sees. Those are refused.
//
// The screens that judge a name's meaning (Skeleton, the credential
// screen) drop every invisible character first, whatever this rule says,
// so an accepted one never hides a secret-looking name.

// firstFault is the first character of s that text a person reads must
// not hold, with its offset and why, or ok.
func firstFault(s string) (at int, why string, ok bool) {
	at, why = -1, ""
	scanText(s, func(i int, _ rune, w string) bool {
		at, why = i, w
		return false
	})
	return at, why, at < 0
}

// TextFault says why s is not legible text, naming the first character
// at fault and the rule it breaks, or "" when every character is
// printable or an invisible one its script uses (see Printable).
func TextFault(s string) string {
	at, why, ok := firstFault(s)
	if ok {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(s[at:])
	if why == faultUTF8 {
		return why
	}
	return fmt.Sprintf("%s (%s)", why, codePoint(r))
}

// The rules a character can break, as TextFault names them.
const (
	faultUTF8      = "bytes that are not UTF-8"
	faultControl   = "a control character"
	faultSpace     = "a space other than the plain space, or a line break"
	faultBidi      = "a direction control, which reorders what is shown"
	faultTag       = "a tag character outside a flag, which carries text no one sees"
	faultInvisible = "an invisible character outside a script that spells with it"
	faultNoScript  = "an invisible character no script spells with"
	faultOther     = "a private-use or unassigned code point"
)

func codePoint(r rune) string { return fmt.Sprintf("U+%04X", r) }

// scanText calls bad for each character of s the rule refuses, with its
// offset and why, until bad returns false.
func scanText(s string, bad func(i int, r rune, why string) bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !bad(i, rune(c), faultControl) {
				return
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			if !bad(i, r, faultUTF8) {
				return
			}
			i++
			continue
		}
		if r >= 0xE0020 && r <= 0xE007F {
			// A run of tag characters is one flag or none: judged once,
			// so that no character looks back or ahead over the run.
			end, flag := tagRun(s, i)
			for ; !flag && i < end; i += 4 {
				if t, _ := utf8.DecodeRuneInString(s[i:]); !bad(i, t, faultTag) {
					return
				}
			}
			i = end
			continue
		}
		if why := runeFault(s, i, r, n); why != "" && !bad(i, r, why) {
			return
		}
		i += n
	}
}

// runeFault judges the non-ASCII rune r at s[i:i+n] in its context.
func runeFault(s string, i int, r rune, n int) string {
	if !invisibleRune(r) && !unicode.Is(unicode.Variation_Selector, r) {
		switch {
		case PrintableRune(r):
			return ""
		case unicode.Is(unicode.Cc, r):
			return faultControl
		case unicode.In(r, unicode.Z):
			return faultSpace
		}
		return faultOther
	}
	switch {
	case unicode.Is(unicode.Bidi_Control, r):
		return faultBidi
	case r >= 0xE0000 && r <= 0xE007F:
		// The language tag; the others scanText judges a run at a time.
		return faultTag
	case unicode.Is(unicode.Variation_Selector, r):
		if variationOrdinary(s, i, n) {
			return ""
		}
		return faultInvisible
	case unicode.Is(unicode.Prepended_Concatenation_Mark, r):
		// A visible sign drawn across the number that follows it.
		if next, _ := utf8.DecodeRuneInString(s[i+n:]); unicode.IsNumber(next) {
			return ""
		}
		return faultInvisible
	case refusedFormat(r):
		return faultNoScript
	case r == 0x200D && emojiJoined(s, i, n), (r == 0x200C || r == 0x200D) && afterVirama(s, i), scriptJoined(s, i, n):
		return ""
	}
	return faultInvisible
}

// invisibleRune reports a character that draws nothing of its own: a
// format character, a default-ignorable letter or mark (a Hangul filler,
// the combining grapheme joiner, the Khmer inherent vowels), or the blank
// braille pattern.
func invisibleRune(r rune) bool {
	return unicode.Is(unicode.Cf, r) || r >= 0x034F && (r == 0x034F || r == 0x2800 ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r))
}

// refusedFormat are the invisible characters no script spells with: the
// invisible mathematical operators, the deprecated format characters, the
// byte order mark, the interlinear annotation marks, the musical format
// characters, and the unassigned default-ignorable code points.
func refusedFormat(r rune) bool {
	return r >= 0x2061 && r <= 0x2064 || r >= 0x206A && r <= 0x206F || r == 0xFEFF ||
		r >= 0xFFF9 && r <= 0xFFFB || r >= 0x1D173 && r <= 0x1D17A ||
		!unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Cf)
}

// baseBefore is the character s[:i] ends with, or the letter the marks it
// ends with stand on; -1 when there is none.
func baseBefore(s string, i int) rune {
	for j := i; j > 0; {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		if !unicode.In(r, unicode.M) || r == 0x034F {
			return r
		}
		j -= n
	}
	return -1
}

// scriptJoined reports an invisible character at s[i:i+n] standing
// between two characters of one script that spells with such characters:
// any script but Latin, Greek, Cyrillic, Armenian and Cherokee (whose
// letters the look-alike names imitate) and the common and inherited
// characters (digits, punctuation, symbols, bare marks).
func scriptJoined(s string, i, n int) bool {
	base := baseBefore(s, i)
	next, _ := utf8.DecodeRuneInString(s[i+n:])
	if base < utf8.RuneSelf || next < utf8.RuneSelf || i+n >= len(s) ||
		!unicode.In(base, unicode.L, unicode.M, unicode.N) || !unicode.In(next, unicode.L, unicode.M, unicode.N) || invisibleRune(next) {
		return false
	}
	sc := scriptOf(base)
	if sc == nil || lookAlikeScript(sc) {
		return false
	}
	// Scripts partition the code points: one lookup of next's suffices.
	return unicode.Is(sc, next) || unicode.Is(unicode.Inherited, next) && unicode.In(next, unicode.M)
}

// afterVirama reports a joiner or non-joiner right after a virama, where
// it chooses how the conjunct is drawn, also at a word's end (Malayalam's
// older chillu spelling): the rule IDNA's CONTEXTJ gives them.
func afterVirama(s string, i int) bool {
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	return i > 0 && norm.NFD.PropertiesString(string(prev)).CCC() == 9
}

// emojiJoined reports a zero-width joiner inside an emoji sequence: an
// emoji (with its presentation selector or skin tone) before, an emoji
// after.
func emojiJoined(s string, i, n int) bool {
	j := i
	for j > 0 {
		r, m := utf8.DecodeLastRuneInString(s[:j])
		if r == 0xFE0F || r >= 0x1F3FB && r <= 0x1F3FF {
			j -= m
			continue
		}
		break
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:j])
	next, _ := utf8.DecodeRuneInString(s[i+n:])
	return j > 0 && i+n < len(s) && emoji(prev) && emoji(next)
}

func emoji(r rune) bool { return r >= 0x2190 && unicode.Is(unicode.So, r) }

// tagRun is the end of the run of tag characters at s[i:] (U+E0020 to
// U+E007E, and the cancel tag that ends it), and whether it is a flag: a
// waving black flag, then tag letters and digits, then the cancel tag.
func tagRun(s string, i int) (end int, flag bool) {
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	flag = i > 0 && prev == 0x1F3F4
	for end = i; end < len(s); end += 4 {
		r, _ := utf8.DecodeRuneInString(s[end:])
		switch {
		case r == 0xE007F:
			return end + 4, flag && end > i
		case r >= 0xE0061 && r <= 0xE007A, r >= 0xE0030 && r <= 0xE0039:
		case r >= 0xE0020 && r <= 0xE007E:
			flag = false
		default:
			return end, false
		}
	}
	return end, false
}

// variationOrdinary reports a variation selector at s[i:i+n] after a
// character that takes one: an emoji or another symbol, an ideograph or a
// letter of a script look-alike names do not imitate, the digit, # or *
// of a keycap; not after a Latin, Greek or Cyrillic letter, punctuation, a
// space, a mark, another invisible character, or nothing.
func variationOrdinary(s string, i, n int) bool {
	if i == 0 {
		return false
	}
	prev, size := utf8.DecodeLastRuneInString(s[:i])
	switch {
	case prev == utf8.RuneError && size <= 1:
		// A byte that is not UTF-8 is no symbol (U+FFFD) to vary: once
		// Escape spells it as \xb4, the selector would follow a digit.
		return false
	case invisibleRune(prev) || unicode.Is(unicode.Variation_Selector, prev):
		return false
	case prev >= '0' && prev <= '9' || prev == '#' || prev == '*':
		next, _ := utf8.DecodeRuneInString(s[i+n:])
		return next == 0x20E3
	case unicode.In(prev, unicode.S):
		return true
	case unicode.IsLetter(prev):
		sc := scriptOf(prev)
		return sc != nil && !lookAlikeScript(sc)
	}
	return false
}

func lookAlikeScript(sc *unicode.RangeTable) bool {
	return sc == unicode.Latin || sc == unicode.Greek || sc == unicode.Cyrillic || sc == unicode.Armenian ||
		sc == unicode.Cherokee || sc == unicode.Common || sc == unicode.Inherited
}

// scriptOf is the script r belongs to, or nil.
func scriptOf(r rune) *unicode.RangeTable {
	for _, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			return t
		}
	}
	return nil
}

// Escape writes s for a terminal: every character the rule refuses, and
// the backslash, as an escape (\x07, \u202E, \U000E0041), the rest as it
// is, so a name with a direction control or a control character shows
// what it holds instead of acting on the display.
func Escape(s string) string {
	var b strings.Builder
	last := 0
	scanText(s, func(i int, r rune, _ string) bool {
		b.WriteString(strings.ReplaceAll(s[last:i], `\`, `\\`))
		n := 1
		if r != utf8.RuneError {
			n = utf8.RuneLen(r)
		}
		switch {
		case r == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			fmt.Fprintf(&b, `\U%08X`, r)
		}
		last = i + n
		return true
	})
	b.WriteString(strings.ReplaceAll(s[last:], `\`, `\\`))
	return b.String()
}

// PathFault says why p is not a safe workspace-relative path of at most
// max code points, naming the rule it breaks, or "" when it is one: legible
// text (TextFault) of a RelPathShape.
func PathFault(p string, max int) string {
	switch {
	case p == "":
		return "an empty path"
	case Len(p) > max:
		return fmt.Sprintf("longer than %d characters", max)
	}
	if why := TextFault(p); why != "" {
		return why
	}
	return shapeFault(p)
}

func shapeFault(p string) string {
	switch shapeOf(p) {
	case shapeBackslash:
		return "a backslash"
	case shapeAbsolute, shapeDrive:
		return "an absolute path or a drive"
	case shapeEmpty, shapeClimb, shapeEmptySegment:
		return "an empty, '.' or '..' segment"
	case shapeWindowsName:
		return windowsNameFault(p)
	}
	return ""
}
