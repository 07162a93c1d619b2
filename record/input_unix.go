//go:build unix

package record

import (
	"os"

	"golang.org/x/sys/unix"
)

// openInput opens a record input with no final link followed, non-blocking
// (a FIFO cannot hang it).
func openInput(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
}
