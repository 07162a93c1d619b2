package search

import "hash/maphash"

// termTable numbers one document's distinct terms in the order they first
// appear and keeps their bytes end to end in one blob, which is the shape
// Prepared stores them in. It is a map from term to number without a
// string per term: open addressing over the blob, probed by a hash of the
// term's bytes.
type termTable struct {
	slots  []int32  // 0 is empty, else a term's number + 1; a power of two long
	hashes []uint32 // each term's hash, so growing reads no blob and most misses compare no bytes
	blob   []byte
	ends   []uint32 // where each term of blob ends
}

var termSeed = maphash.MakeSeed()

// maxKeptSlots bounds the table a worker keeps between documents: one
// document with very many terms must not make every later one clear a
// table of its size.
const maxKeptSlots = 1 << 14

// index returns term's number, adding it as the next one when it is new.
func (tt *termTable) index(term []byte) (i int32, added bool) {
	if 2*(len(tt.ends)+1) > len(tt.slots) {
		tt.grow()
	}
	h := uint32(maphash.Bytes(termSeed, term))
	mask := uint32(len(tt.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		e := tt.slots[k]
		if e == 0 {
			i = int32(len(tt.ends))
			tt.slots[k] = i + 1
			tt.hashes = append(tt.hashes, h)
			tt.blob = append(tt.blob, term...)
			tt.ends = append(tt.ends, uint32(len(tt.blob)))
			return i, true
		}
		if i = e - 1; tt.hashes[i] == h && string(tt.term(i)) == string(term) {
			return i, false
		}
	}
}

func (tt *termTable) term(i int32) []byte {
	start := uint32(0)
	if i > 0 {
		start = tt.ends[i-1]
	}
	return tt.blob[start:tt.ends[i]]
}

// grow doubles the slots (from 256) and places every term again.
func (tt *termTable) grow() {
	tt.slots = make([]int32, max(256, 2*len(tt.slots)))
	mask := uint32(len(tt.slots) - 1)
	for i, h := range tt.hashes {
		k := h & mask
		for tt.slots[k] != 0 {
			k = (k + 1) & mask
		}
		tt.slots[k] = int32(i) + 1
	}
}

// reset empties the table for the next document.
func (tt *termTable) reset() {
	if len(tt.slots) > maxKeptSlots {
		tt.slots = nil
	} else {
		clear(tt.slots)
	}
	tt.hashes, tt.blob, tt.ends = tt.hashes[:0], tt.blob[:0], tt.ends[:0]
}
