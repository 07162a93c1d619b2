package search

import (
	"bytes"
	"slices"
	"testing"
)

// hitsRef is how chains found a needle before appendHits: bytes.Index
// from each place past the last hit.
func hitsRef(low, needle []byte) []int {
	var hits []int
	for i := 0; ; {
		j := bytes.Index(low[i:], needle)
		if j < 0 {
			return hits
		}
		hits = append(hits, i+j)
		i += j + 1
	}
}

// FuzzHitsAgree holds appendHits to hitsRef: the same places, in the same
// order, whichever byte of the needle it looks for (overlapping needles,
// a needle at either end, one longer than the text included).
func FuzzHitsAgree(f *testing.F) {
	for _, c := range [][2]string{{"privacy and privacy", "privac"}, {"aaaa", "aa"}, {"quokka", "quokk"}, {"x", "xy"},
		{"a-b_c.d a-b", "a-b"}, {"", "q"}, {"pppp privac", "pp"}, {"endq", "q"}, {"qend", "q"}, {"xq", "qa"}} {
		f.Add([]byte(c[0]), []byte(c[1]), uint8(0))
	}
	f.Fuzz(func(t *testing.T, low, needle []byte, k uint8) {
		if len(needle) == 0 {
			return
		}
		want := hitsRef(low, needle)
		for _, rare := range []int{rarest(needle), int(k) % len(needle)} {
			if got := appendHits(nil, low, needle, rare); !slices.Equal(got, want) {
				t.Fatalf("%q in %q from byte %d: %v, want %v", needle, low, rare, got, want)
			}
		}
	})
}

// refNeedles are a focus's needles as FocusOn made them before
// fewestNeedles: one per wanted term of ASCII.
func refNeedles(question string) [][]byte {
	var out [][]byte
	for _, t := range wanted(question) {
		if ascii(t) {
			out = append(out, []byte(t[:max(1, len(t)-1)]))
		}
	}
	return out
}

// placesOf is where any of needles stands in low, each place once, in order.
func placesOf(low []byte, needles [][]byte) []int {
	var hits []int
	for _, n := range needles {
		hits = append(hits, hitsRef(low, n)...)
	}
	slices.Sort(hits)
	return slices.Compact(hits)
}

// FuzzNeedlesAgree holds a focus's fewer needles to every wanted term's:
// they stand at the same places in any text, so chains hands out the same
// chains.
func FuzzNeedlesAgree(f *testing.F) {
	for _, c := range [][2]string{{"quokka privacy", "the quokka's privacy, quokkaprivacy, quo pri priv"},
		{"a ab abc", "abcabc ab"}, {"dec-0054 tar.gz", "dec-0054-tar.gz tar.g dec-005"}, {"privacy privacy", "privac"},
		{"über quokka", "über quokka quok"}, {"x", "xxx"}, {"configuration config conf", "configuration configurable conf"}} {
		f.Add(c[0], []byte(c[1]))
	}
	f.Fuzz(func(t *testing.T, question string, low []byte) {
		fo := FocusOn(question)
		if got, want := placesOf(low, fo.needles), placesOf(low, refNeedles(question)); !slices.Equal(got, want) {
			t.Fatalf("%q in %q: needles %q at %v, want %v", question, low, fo.needles, got, want)
		}
		for k, n := range fo.needles {
			if fo.rare[k] != rarest(n) {
				t.Fatalf("needle %q: rare %d, want %d", n, fo.rare[k], rarest(n))
			}
		}
	})
}
