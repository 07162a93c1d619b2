package guard

import (
	"strings"
	"testing"
)

// TestASCIIControlEveryByte: each byte value at every place of the first
// 40, in a text of 3 to 72 bytes, read as a plain loop reads it.
func TestASCIIControlEveryByte(t *testing.T) {
	for n := 3; n <= 72; n += 23 {
		for c := 0; c < 256; c++ {
			for pos := 0; pos < 40 && pos < n; pos++ {
				b := []byte(strings.Repeat("a\n\t \r", 15)[:n])
				b[pos] = byte(c)
				s := string(b)
				ascii, ctl := true, false
				for i := 0; i < len(s); i++ {
					ascii = ascii && s[i] < 0x80
					ctl = ctl || isControlByte(s[i])
				}
				if a, k := asciiControl(s); a != ascii || ascii && k != ctl {
					t.Fatalf("asciiControl(%q) = %v, %v", s, a, k)
				}
			}
		}
	}
}
