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
		"e" + strings.Repeat("\u0301\u0316", 40) + "x", "\u1100\u1161\u11a8 \uac00\u11a8", "\u0b47\u0b3e ﬁ ㎏ ①", "ǅ ſt Å Ω"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isASCII(s) {
			return
		}
		if got, want := securityText(s), refSecurityText(s); got != want {
			t.Fatalf("securityText(%q) = %q, the rune reading %q", s, got, want)
		}
	})
}
