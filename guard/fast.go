package guard

import (
	"encoding/binary"
	"strings"
	"unsafe"
)

// The scans below read eight bytes at a time: every document of a cold call
// passes through them, and a byte loop was the larger part of its CPU time.

const ones, highs = 0x0101010101010101, 0x8080808080808080

// bytesOf views s without copying; callers only read it.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func isASCII(s string) bool {
	b := bytesOf(s)
	var acc uint64
	for len(b) >= 32 {
		acc |= binary.LittleEndian.Uint64(b) | binary.LittleEndian.Uint64(b[8:]) |
			binary.LittleEndian.Uint64(b[16:]) | binary.LittleEndian.Uint64(b[24:])
		b = b[32:]
	}
	for len(b) >= 8 {
		acc |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		acc |= uint64(c)
	}
	return acc&highs == 0
}

// hasControl reports a control byte other than ASCII whitespace (0x00-0x08,
// 0x0e-0x1f, 0x7f). On ASCII bytes the sums below never carry, so each
// mask is exact: a line break costs nothing.
func hasControl(s string) bool {
	b := bytesOf(s)
	for len(b) >= 8 {
		word := b[:8]
		b = b[8:]
		w := binary.LittleEndian.Uint64(word)
		if w&highs != 0 {
			for _, c := range word {
				if isControlByte(c) {
					return true
				}
			}
			continue
		}
		below09 := ^(w + ones*0x77)
		below0e := ^(w + ones*0x72)
		below20 := ^(w + ones*0x60)
		is7f := w + ones
		if (below09|below20&^below0e|is7f)&highs != 0 {
			return true
		}
	}
	for _, c := range b {
		if isControlByte(c) {
			return true
		}
	}
	return false
}

// upperBytes marks (0x80) the upper-case bytes of eight ASCII bytes: adding
// 0x3f carries a byte past 0x7f when it is >= 'A', adding 0x25 when it is
// > 'Z', and ASCII bytes never carry into their neighbour.
func upperBytes(w uint64) uint64 { return (w + ones*0x3f) &^ (w + ones*0x25) & highs }

// Lower is strings.ToLower, eight bytes at a time for ASCII text. Text with
// no upper case is returned as it is.
func Lower(s string) string {
	if !isASCII(s) {
		return strings.ToLower(s)
	}
	b := bytesOf(s)
	i := 0
	for i+8 <= len(b) && upperBytes(binary.LittleEndian.Uint64(b[i:])) == 0 {
		i += 8
	}
	for i < len(b) && i+8 > len(b) && (b[i] < 'A' || b[i] > 'Z') {
		i++
	}
	if i == len(b) {
		return s
	}
	out := append([]byte(nil), b...)
	for ; i+8 <= len(out); i += 8 {
		w := binary.LittleEndian.Uint64(out[i:])
		binary.LittleEndian.PutUint64(out[i:], w|upperBytes(w)>>2)
	}
	for ; i < len(out); i++ {
		if c := out[i]; c >= 'A' && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// asciiControl is isASCII and hasControl in one pass: whether every byte
// is ASCII, and whether a control byte other than ASCII whitespace is
// among them (meaningful only for ASCII text).
func asciiControl(s string) (ascii, control bool) {
	b := bytesOf(s)
	var acc, ctl uint64
	// Per byte: below 0x09, or 0x0e to 0x1f, or 0x7f. The middle range
	// is an XOR rather than an AND NOT (one instruction, not two, before
	// GOAMD64=v3): a byte from 0x20 is also one from 0x0e, so the two
	// marks differ only on 0x0e to 0x1f. Thirty-two bytes a round: the
	// loop's own cost was a sizeable part of this pass.
	for len(b) >= 32 {
		w0, w1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		w2, w3 := binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])
		b = b[32:]
		acc |= w0 | w1 | w2 | w3
		ctl |= ^(w0 + ones*0x77) | ((w0 + ones*0x60) ^ (w0 + ones*0x72)) | (w0 + ones) |
			^(w1 + ones*0x77) | ((w1 + ones*0x60) ^ (w1 + ones*0x72)) | (w1 + ones) |
			^(w2 + ones*0x77) | ((w2 + ones*0x60) ^ (w2 + ones*0x72)) | (w2 + ones) |
			^(w3 + ones*0x77) | ((w3 + ones*0x60) ^ (w3 + ones*0x72)) | (w3 + ones)
	}
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		b = b[8:]
		acc |= w
		below09 := ^(w + ones*0x77)
		below0e := ^(w + ones*0x72)
		below20 := ^(w + ones*0x60)
		is7f := w + ones
		ctl |= below09 | below20&^below0e | is7f
	}
	for _, c := range b {
		acc |= uint64(c)
		if isControlByte(c) {
			ctl |= highs
		}
	}
	if acc&highs != 0 {
		return false, false
	}
	return true, ctl&highs != 0
}
