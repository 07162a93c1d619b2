package search

import (
	"slices"
	"testing"
)

// Packed postings give back every slot and count they were given, in
// order, has finds exactly those slots (past the skips of a long list
// too), and tfLen is the size appendTF writes.
func FuzzPostingsRoundTrip(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 3, 0, 0, 0, 200, 7, 1, 0, 0, 0, 15}, uint32(3))
	long := make([]byte, 300*nFields)
	for i := range long {
		long[i] = byte(i * 7)
	}
	f.Add(long, uint32(2))
	f.Add(long, uint32(1))
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
		held := map[uint32]bool{}
		for _, p := range want {
			held[p.slot] = true
		}
		for _, p := range want {
			for _, s := range []uint32{p.slot - 1, p.slot, p.slot + 1} {
				if pl.has(s) != held[s] {
					t.Fatalf("has(%d) = %v in %v", s, !held[s], want)
				}
			}
		}
	})
}
