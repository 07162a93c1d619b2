package guard

import (
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// refSecurityText is securityText for text outside ASCII, one rune at a
// time through Unicode's tables, as it was written first.
func refSecurityText(s string) string {
	d := norm.NFKD.String(norm.NFKC.String(s))
	var b strings.Builder
	for _, r := range d {
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		case unicode.In(r, unicode.C, unicode.M):
		case r > unicode.MaxASCII && IsDash(r):
			b.WriteByte('-')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// The screen reads a text outside ASCII exactly as the rune-by-rune
// reading does: what it screens is the same string.
func FuzzSecurityTextAgrees(f *testing.F) {
	for _, s := range []string{"é", "ｐａｓｓｗｏｒｄ = x\t\v\f\r\n\x00\x7f", "ghp\u200b_abc", "а\u00a0b\u0085c", "x\xffy – z", "Ａ\u0301\x1b[0m",
		"e" + strings.Repeat("\u0301\u0316", 40) + "x", "\u1100\u1161\u11a8 \uac00\u11a8", "\u0b47\u0b3e ﬁ ㎏ ①", "ǅ ſt Å Ω",
		"x\xffé", "é\xc3", "ａ\u0316\u0301ｂ\u0345\u0307", "ﷺ \u0f73\u0f75 \u2000\u3000\u00a0\u0085", "\u2212\u2010key\u2014", "\u202egh\u202cp_", "ｇｈｐ＿" + strings.Repeat("\uff41", 36),
		"\ud55c\uad6d\uc5b4 \u0928\u092e\u0938\u094d\u0924\u0947 \u0645\u0631\u062d\u0628\u0627 \u4e2d\u6587\r\n\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isASCII(s) {
			return
		}
		if got, want := securityText(s), refSecurityText(s); got != want {
			t.Fatalf("securityText(%q) = %q, the rune reading %q", s, got, want)
		}
		if got, want := securityRunes(s), securityNorm(s); got != want {
			t.Fatalf("securityRunes(%q) = %q, the whole text's NFKD reads %q", s, got, want)
		}
	})
}

// TestRuneViewsExact reads every code point: each one's view is exact
// alone (no non-starter of its decomposition survives), and the security
// text of runs of consecutive code points, alone, between letters and
// among marks that canonical ordering moves, is the rune reading's.
func TestRuneViewsExact(t *testing.T) {
	var all []rune
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		if runeView(r) == notExact {
			t.Errorf("U+%04X: its decomposition keeps a non-starter", r)
		}
		all = append(all, r)
	}
	for i := 0; i < len(all); i += 512 {
		run := all[i:min(i+512, len(all))]
		var between, marked strings.Builder
		for _, r := range run {
			between.WriteString("a" + string(r))
			marked.WriteString("\u0316" + string(r) + "\u0301\u0327")
		}
		for _, s := range []string{string(run), between.String(), marked.String()} {
			if got, want := securityText(s), refSecurityText(s); got != want {
				t.Fatalf("securityText differs from the rune reading on the code points from U+%04X", run[0])
			}
		}
	}
}
