package cli

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// The progress line is drawn on a terminal only: never into a pipe, a
// file or the null device, which scripts and tests read.
func TestIsTerminal(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skip("no pseudo-terminals here:", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skip("cannot unlock a pseudo-terminal:", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skip("cannot name a pseudo-terminal:", err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skip("cannot open a pseudo-terminal:", err)
	}
	defer tty.Close()
	if !isTerminal(tty) {
		t.Error("a terminal was not taken for one")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.Create(t.TempDir() + "/stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, f := range map[string]*os.File{"a pipe": w, "the null device": null, "a file": file} {
		if isTerminal(f) {
			t.Errorf("%s was taken for a terminal", name)
		}
	}
}
