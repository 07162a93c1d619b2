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
