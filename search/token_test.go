package search

import (
	"slices"
	"strings"
	"testing"
)

// tokenOut is a token with its term copied out of the scanner's buffer.
type tokenOut struct {
	term            string
	pos, start, end int
	parts           int
}

func tokens(scanFn func(string, func(token)), s string) []tokenOut {
	var out []tokenOut
	scanFn(s, func(t token) {
		out = append(out, tokenOut{string(t.term), t.pos, t.start, t.end, t.parts})
	})
	return out
}

// scanSeeds cover each way a word starts, goes on and ends.
var scanSeeds = []string{
	"",
	"How do I [c]reate an archive of files? E[x]tract a tar.gz; DEC-0054 decides.",
	"decision-0001 file.txt snake_case_name a-b-c -lead trail- x..y a_-b 1.2.3 v2 ..",
	"[c]reate [ab]c x[y] ]] [[ [abcd]e [a]] a[b]c[d]e [] [x] [xy]z w[]x [[c]]reate ab[cdef]g",
	"a-[b]c [b]-c x[y]-z a.[b] [a].b q]r s[t ]u[ [v[w]x]",
	"İstanbul ﬁle straße ÉCOLE Ǆemal ΣΊΣΥΦΟΣ Kelvin\u212a naïve café-au-lait 東京タワー ٣٤ ²³ Ⅻ x²",
	"bad \xff\xfe utf8 a\xc3 b\xe2\x82 wo\x80rd [\xff]a a[\xc3\xa9]b é-\xff",
	"running stopped copies copied boxes churches wishes buzzes classes status alias analysis gas quickly readable executable tied dying using moved making embedded hopping fizzing falling missed",
	"Mixed CASE identifiers like HTTPServer, getUserByID, UTF-8, x86_64, ISO-8859-1, C++ and node.js.",
	"---\nstatus: active\ntags: [workspace, decision]\n---\n# Title 12\n\n- [link](notes/a-b.md) `code_span` **bold** _em_ ~~x~~\n",
	strings.Repeat("supercalifragilistic", 40) + " " + strings.Repeat("ab-", 300) + "z",
	strings.Repeat("[", 50) + "a" + strings.Repeat("]", 50),
	"\u00a0nbsp\u2009thin\u200bzw\u200djoin\u0301combining a\u0308b",
	"ies sses xes ches shes zes ss us is as ly able ied ing ed lies passes boxes",
}

// scan reads every text exactly as the reference tokenizer does: the same
// terms at the same positions, spans and parts, in the same order.
func TestScanAgreesOnSeeds(t *testing.T) {
	for _, s := range scanSeeds {
		if got, want := tokens(scan, s), tokens(refScan, s); !slices.Equal(got, want) {
			t.Errorf("scan(%q)\n got %v\nwant %v", s, got, want)
		}
	}
}

func FuzzScanAgrees(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := tokens(scan, s), tokens(refScan, s); !slices.Equal(got, want) {
			t.Fatalf("scan(%q)\n got %v\nwant %v", s, got, want)
		}
	})
}

// stemBytes folds every word as the reference does, whatever its bytes.
func FuzzStemAgrees(f *testing.F) {
	for _, s := range scanSeeds {
		for _, w := range strings.Fields(s) {
			f.Add([]byte(strings.ToLower(w)))
		}
	}
	f.Fuzz(func(t *testing.T, w []byte) {
		got := string(stemBytes(slices.Clone(w)))
		if want := string(refStemBytes(slices.Clone(w))); got != want {
			t.Fatalf("stemBytes(%q) = %q, want %q", w, got, want)
		}
		if got, want := stem(string(w)), refStem(string(w)); got != want {
			t.Fatalf("stem(%q) = %q, want %q", w, got, want)
		}
	})
}

// classify marks exactly the bytes asciiWord maps to a digit or a letter,
// whatever byte stands in any lane and whatever its neighbours are.
func TestClassifyEveryByte(t *testing.T) {
	for _, fill := range []byte{0x00, '/', '0', '9', ':', '@', 'A', 'Z', '[', '`', 'a', 'z', '{', 0x7f, 0x80, 0xc3, 0xff} {
		for lane := range 8 {
			for b := range 256 {
				var x uint64
				for k := range 8 {
					c := fill
					if k == lane {
						c = byte(b)
					}
					x |= uint64(c) << (8 * k)
				}
				d, l := classify(x)
				for k := range 8 {
					c := byte(x >> (8 * k))
					wantD, wantL := asciiWord[c] != 0 && c <= '9', asciiWord[c] != 0 && c > '9'
					if gotD, gotL := d>>(8*k+7)&1 == 1, l>>(8*k+7)&1 == 1; gotD != wantD || gotL != wantL {
						t.Fatalf("classify(%#016x) lane %d (%q): digit %v letter %v, want %v %v", x, k, c, gotD, gotL, wantD, wantL)
					}
				}
			}
		}
	}
}
