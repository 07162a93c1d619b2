package adapter

import (
	"os"

	"golang.org/x/sys/windows"
)

// claimStdio moves the protocol onto the process's standard input and
// output handles and points the standard handles, and os.Stdin and
// os.Stdout, at the null device, so a stray write can never corrupt the
// wire (nor reach stderr, which stays for diagnostics only).
func claimStdio() (in *os.File, out *os.File, restore func(), err error) {
	os.Stdout.Sync()
	wireIn, err := windows.GetStdHandle(windows.STD_INPUT_HANDLE)
	if err != nil {
		return nil, nil, nil, err
	}
	wireOut, err := windows.GetStdHandle(windows.STD_OUTPUT_HANDLE)
	if err != nil {
		return nil, nil, nil, err
	}
	nullIn, err := os.Open(os.DevNull)
	if err != nil {
		return nil, nil, nil, err
	}
	nullOut, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		nullIn.Close()
		return nil, nil, nil, err
	}
	savedIn, savedOut := os.Stdin, os.Stdout
	windows.SetStdHandle(windows.STD_INPUT_HANDLE, windows.Handle(nullIn.Fd()))
	windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, windows.Handle(nullOut.Fd()))
	os.Stdin, os.Stdout = nullIn, nullOut
	in = os.NewFile(uintptr(wireIn), "mcp-in")
	out = os.NewFile(uintptr(wireOut), "mcp-out")
	restore = func() {
		windows.SetStdHandle(windows.STD_INPUT_HANDLE, wireIn)
		windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, wireOut)
		os.Stdin, os.Stdout = savedIn, savedOut
		nullIn.Close()
		nullOut.Close()
	}
	return in, out, restore, nil
}
