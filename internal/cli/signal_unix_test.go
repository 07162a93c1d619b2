//go:build unix

package cli_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/internal/testws"
)

// SIGTERM (what a supervisor or `kill` sends) and SIGINT (Ctrl-C) both
// cancel a running vivary: the git child it waits on is killed, and vivary
// itself exits 2 with a refusal instead of dying by the signal.
func TestSignalsCancelARunningCall(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			root := testws.Thin(t, nil)
			testws.Git(t, root, "init", "-q")
			// Git blocks reading an exclude file that is a FIFO until a
			// writer comes, which never does: the call is stuck in git.
			fifo := filepath.Join(root, ".git", "info", "exclude")
			os.Remove(fifo)
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			cmd := exec.Command(bin.vivary, "check", "--workspace", root)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			// A non-blocking open for writing succeeds only once a reader
			// (git) has the FIFO open: the event to signal on.
			var w int
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
				fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
				if err == nil {
					w = fd
					break
				}
				if !errors.Is(err, syscall.ENXIO) || time.Now().After(deadline) {
					t.Fatalf("git never opened the exclude file: %v\n%s", err, stderr.String())
				}
			}
			defer syscall.Close(w)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("after %s: %v (%s), want exit 2\n%s", sig, err, cmd.ProcessState, stderr.String())
			}
			if !strings.Contains(stderr.String(), "vivary check: producer_unavailable: ") {
				t.Errorf("stderr says %q", stderr.String())
			}
			// No reader is left: git is gone, not orphaned.
			if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0); err == nil {
				syscall.Close(fd)
				t.Error("a git child still reads the exclude file after vivary exited")
			}
		})
	}
}
