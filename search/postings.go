package search

import (
	"encoding/binary"
	"iter"
	"sort"
)

// posting is one document holding a term: its slot and the term's count
// per field, saturated at 255 (the score saturates long before).
type posting struct {
	slot uint32
	tf   [nFields]uint8
}

// plist is the postings of one term, in slot order, packed: most of an
// index's memory is postings, and most postings are a word a note's body
// holds once or a few times. Each is the distance of its slot from the
// previous one's (a uvarint) and its counts (appendTF): two or three bytes
// where a posting struct takes eight. Postings of a removed document stay
// until the next compaction (see remove): df counts only the live ones.
type plist struct {
	data []byte
	n    int    // postings
	last uint32 // the slot of the last posting
	long *long  // a list of more than skipEvery postings: most are short
}

// long is what a long list keeps to count its live postings without
// reading them all: skips say where each run of skipEvery postings after
// the first starts, so that has need not read the list from its start,
// and gone how many of the index's first seen dead slots it holds (see
// Index.df).
type long struct {
	skips      []skip
	seen, gone int
}

// skip is where a run of postings starts in a list's data, and the slot
// of the posting before it, which the first one's distance is from.
type skip struct{ base, off uint32 }

const skipEvery = 64

func (pl *plist) add(slot uint32, tf [nFields]uint8) {
	if pl.n > 0 && pl.n%skipEvery == 0 {
		if pl.long == nil {
			pl.long = &long{}
		}
		pl.long.skips = append(pl.long.skips, skip{pl.last, uint32(len(pl.data))})
	}
	pl.data = binary.AppendUvarint(pl.data, uint64(slot-pl.last))
	pl.data = appendTF(pl.data, tf)
	pl.last = slot
	pl.n++
}

// all yields the postings in slot order, numbered from 0.
func (pl *plist) all() iter.Seq2[int, posting] {
	return func(yield func(int, posting) bool) {
		var p posting
		for j, i := 0, 0; i < len(pl.data); j++ {
			d, n := binary.Uvarint(pl.data[i:])
			p.slot += uint32(d)
			p.tf, i = readTF(pl.data, i+n)
			if !yield(j, p) {
				return
			}
		}
	}
}

// has reports whether the list holds a posting of slot, reading at most
// one run of postings.
func (pl *plist) has(slot uint32) bool {
	base, i := uint32(0), 0
	if pl.long != nil {
		skips := pl.long.skips
		if k := sort.Search(len(skips), func(k int) bool { return skips[k].base >= slot }); k > 0 {
			base, i = skips[k-1].base, int(skips[k-1].off)
		}
	}
	for i < len(pl.data) {
		d, n := binary.Uvarint(pl.data[i:])
		base += uint32(d)
		if base >= slot {
			return base == slot
		}
		_, i = readTF(pl.data, i+n)
	}
	return false
}

// A term's counts pack into one byte whose low bits are the fields that
// hold it and, when one field holds it fewer than 16 times (nearly every
// posting), whose high four bits are that count; else each of those
// fields' counts follows in a byte of its own.
const (
	fieldsMask = 1<<nFields - 1
	_          = uint(4 - nFields) // the fields fit the low four bits
)

func appendTF(b []byte, tf [nFields]uint8) []byte {
	var mask byte
	single := -1
	for f, n := range tf {
		if n != 0 {
			mask |= 1 << f
			if single == -1 {
				single = f
			} else {
				single = -2
			}
		}
	}
	if single >= 0 && tf[single] < 16 {
		return append(b, mask|tf[single]<<4)
	}
	b = append(b, mask)
	for _, n := range tf {
		if n != 0 {
			b = append(b, n)
		}
	}
	return b
}

// tfLen is how many bytes appendTF writes for tf.
func tfLen(tf [nFields]uint8) int {
	fields, last := 0, uint8(0)
	for _, n := range tf {
		if n != 0 {
			fields++
			last = n
		}
	}
	if fields == 1 && last < 16 {
		return 1
	}
	return 1 + fields
}

// readTF reads the counts appendTF wrote at b[i] and returns where they end.
func readTF(b []byte, i int) (tf [nFields]uint8, next int) {
	c := b[i]
	i++
	mask := c & fieldsMask
	if c>>4 != 0 {
		for f := range nFields {
			if mask&(1<<f) != 0 {
				tf[f] = c >> 4
			}
		}
		return tf, i
	}
	for f := range nFields {
		if mask&(1<<f) != 0 {
			tf[f] = b[i]
			i++
		}
	}
	return tf, i
}
