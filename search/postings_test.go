package search

import (
	"slices"
	"testing"
)

// Packed postings give back every slot and count they were given, in
// order, and tfLen is the size appendTF writes.
func FuzzPostingsRoundTrip(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 3, 0, 0, 0, 200, 7, 1, 0, 0, 0, 15}, uint32(3))
	f.Fuzz(func(t *testing.T, raw []byte, step uint32) {
		var want []posting
		var pl plist
		slot := uint32(0)
		for i := 0; i+nFields <= len(raw); i += nFields {
			var tf [nFields]uint8
			copy(tf[:], raw[i:i+nFields])
			if tf == ([nFields]uint8{}) {
				tf[fBody] = 1 // an indexed term is in some field
			}
			if n := len(appendTF(nil, tf)); n != tfLen(tf) {
				t.Fatalf("tfLen(%v) = %d, appendTF wrote %d", tf, tfLen(tf), n)
			}
			slot += step % 100000
			pl.add(slot, tf)
			want = append(want, posting{slot, tf})
		}
		var got []posting
		for j, p := range pl.all() {
			if j != len(got) {
				t.Fatalf("posting %d numbered %d", len(got), j)
			}
			got = append(got, p)
		}
		if !slices.Equal(got, want) || pl.n != len(want) {
			t.Fatalf("got %v (n %d), want %v", got, pl.n, want)
		}
	})
}
