package search

import (
	"encoding/binary"
	"iter"
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
}

func (pl *plist) add(slot uint32, tf [nFields]uint8) {
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
