//go:build unix

package policy_test

import (
	"syscall"
	"testing"
)

// mkfifo makes a FIFO at path.
func mkfifo(t *testing.T, path string) {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}
