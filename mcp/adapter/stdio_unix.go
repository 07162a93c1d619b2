//go:build unix

package adapter

import (
	"os"
	"syscall"
)

// claimStdio moves the protocol onto private duplicates of fd 0 and fd 1
// and points fd 0 and fd 1 at the null device, so a stray write can never
// corrupt the wire (nor reach stderr, which stays for diagnostics only).
func claimStdio() (in *os.File, out *os.File, restore func(), err error) {
	os.Stdout.Sync()
	savedIn, err := syscall.Dup(0)
	if err != nil {
		return nil, nil, nil, err
	}
	savedOut, err := syscall.Dup(1)
	if err != nil {
		syscall.Close(savedIn)
		return nil, nil, nil, err
	}
	wireIn, err1 := syscall.Dup(savedIn)
	wireOut, err2 := syscall.Dup(savedOut)
	nullIn, err3 := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	nullOut, err4 := syscall.Open(os.DevNull, syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	for _, e := range []error{err1, err2, err3, err4} {
		if e != nil {
			return nil, nil, nil, e
		}
	}
	for _, fd := range []int{savedIn, savedOut, wireIn, wireOut} {
		syscall.CloseOnExec(fd)
	}
	if err := dupTo(nullIn, 0); err != nil {
		return nil, nil, nil, err
	}
	if err := dupTo(nullOut, 1); err != nil {
		return nil, nil, nil, err
	}
	in = os.NewFile(uintptr(wireIn), "mcp-in")
	out = os.NewFile(uintptr(wireOut), "mcp-out")
	restore = func() {
		out.Sync()
		in.Close()
		out.Close()
		dupTo(savedIn, 0)
		dupTo(savedOut, 1)
		for _, fd := range []int{savedIn, savedOut, nullIn, nullOut} {
			syscall.Close(fd)
		}
	}
	return in, out, restore, nil
}
