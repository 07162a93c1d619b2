package guard_test

import (
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
)

// Names as their scripts spell them are legible, invisible characters
// included; the same characters where they only disguise a name are not,
// and TextFault names the rule.
func TestLegibleScripts(t *testing.T) {
	for _, s := range []string{
		"نرم\u200cافزار.md",                                                // Persian: software, ZWNJ required
		"کتاب\u200cها/می\u200cخواهم.md",                                    // Persian plurals and verbs
		"ភាសា\u200bខ្មែរ.md",                                               // Khmer: a zero-width space between words
		"ក្រុង\u200bភ្នំពេញ",                                               // Khmer, a word ending in a sign
		"क्\u200dष.md",                                                     // Devanagari: joiner after a virama
		"क्\u200cष",                                                        // non-joiner after a virama
		"അവന്\u200d.md",                                                    // Malayalam chillu, old spelling, at a word's end
		"👩\u200d💻 work.md",                                                 // emoji ZWJ sequence
		"👩🏽\u200d💻.md",                                                     // with a skin tone
		"🏳\ufe0f\u200d🌈 pride.md",                                          // presentation selector then joiner
		"🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F.md", // flag of Scotland
		"1\ufe0f\u20e3 first.md",                                           // keycap
		"❤\ufe0f.md", "葛\U000E0100飾.md",                                    // emoji and ideographic variation selectors
		"\u0600\u0661\u0662", // Arabic number sign over digits
		"é", "中文", "a b", "Ελληνικά", "Кириллица",
	} {
		if why := guard.TextFault(s); why != "" || !guard.Printable(s) || !guard.SafeRelPath(s, 512) {
			t.Errorf("%q refused: %s", s, why)
		}
	}
	for s, want := range map[string]string{
		"no\u200btes.md":            "invisible character outside a script that spells with it (U+200B)",
		"notes\u200c.md":            "U+200C",
		"\u200cنامه":                "U+200C", // at the start
		"نامه\u200c":                "U+200C", // at the end
		"نامه\u200c\u200cها":        "U+200C", // doubled
		"نامه\u200cnotes":           "U+200C", // between two scripts
		"ab\u00adc.md":              "U+00AD", // soft hyphen in Latin
		"sec\u2060ret.md":           "U+2060",
		"\u202egpj.md":              "direction control, which reorders what is shown (U+202E)",
		"a\u200fb":                  "U+200F",
		"\u061cنامه":                "U+061C",
		"a\u2067b\u2069":            "U+2067",
		"ok\U000E0041\U000E0042.md": "tag character outside a flag", // hidden ASCII
		"🏴\U000E0041\U000E007F":     "tag character outside a flag", // capital tags make no flag
		"🏴\U000E0067\U000E0062":     "tag character outside a flag", // unterminated
		"\ufeffnotes.md":            "no script spells with (U+FEFF)",
		"x\u2062y":                  "U+2062",
		"a\ufe0f.md":                "U+FE0F", // selector after a Latin letter
		".\ufe0fmd":                 "U+FE0F",
		"notes\u3164.md":            "U+3164", // Hangul filler
		"a\u034fb":                  "U+034F",
		"a\x07b":                    "control character (U+0007)",
		"a\u0085b":                  "control character (U+0085)",
		"a\u00a0b":                  "space other than the plain space",
		"a\u2028b":                  "space other than the plain space",
		"a\ue000b":                  "private-use or unassigned code point (U+E000)",
		"a\xffb":                    "bytes that are not UTF-8",
		"a\u200db":                  "U+200D",
		"👩\u200d":                   "U+200D",
		"ក\u200b.md":                "U+200B",
	} {
		why := guard.TextFault(s)
		if !strings.Contains(why, want) || guard.Printable(s) || guard.SafeRelPath(s, 512) {
			t.Errorf("TextFault(%q) = %q, want %q", s, why, want)
		}
	}
}

func TestPathFault(t *testing.T) {
	for p, want := range map[string]string{
		"": "an empty path", "a\\b": "a backslash", "/a": "an absolute path", "C:x": "a drive",
		"a//b": "segment", "a/../b": "segment", "a/": "segment", strings.Repeat("a", 11): "longer than 10 characters",
		"a/\u202eb": "direction control",
	} {
		if why := guard.PathFault(p, 10); !strings.Contains(why, want) {
			t.Errorf("PathFault(%q) = %q, want %q", p, why, want)
		}
	}
	if why := guard.PathFault("نامه\u200cها/a.md", 512); why != "" {
		t.Errorf("a Persian path refused: %s", why)
	}
}

// The secret-looking name screens see through every invisible character,
// accepted or not: a disguised name stays what it reads as.
func TestSkeletonDropsInvisible(t *testing.T) {
	for _, s := range []string{".e\u200bnv", "id_\u200crsa", "se\u00adcret", "to\u2060ken", "pass\ufe0fword",
		".en\U000E0041v", "sec\u202eret", "tok\u3164en", "\u200dsecret\u200d"} {
		sk := guard.Skeleton(s)
		for _, r := range sk {
			if r > 0x7f {
				t.Errorf("Skeleton(%q) = %q keeps %U", s, sk, r)
			}
		}
	}
}

func TestEscape(t *testing.T) {
	for s, want := range map[string]string{
		"plain.md":            "plain.md",
		"a\\b":                `a\\b`,
		"\u202egpj.md":        `\u202Egpj.md`,
		"a\x1b[31mb":          `a\x1b[31mb`,
		"ok\U000E0041":        `ok\U000E0041`,
		"نرم\u200cافزار.md":   "نرم\u200cافزار.md",
		"a\xffb":              `a\xffb`,
		"no\u200btes/\u200c.": `no\u200Btes/\u200C.`,
	} {
		if got := guard.Escape(s); got != want {
			t.Errorf("Escape(%q) = %q, want %q", s, got, want)
		}
		if got := guard.Escape(s); !guard.Printable(got) {
			t.Errorf("Escape(%q) = %q is not printable", s, got)
		}
	}
}
