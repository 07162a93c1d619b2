package idle

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The work runs on a thread at nice Nice, and the caller's own thread is
// left as it was.
func TestRunLowersOnlyItsThread(t *testing.T) {
	before, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	if err != nil {
		t.Skip(err)
	}
	done := make(chan struct{})
	nice := 0
	go func() {
		defer close(done)
		Run(func() {
			// Getpriority's raw value is 20 - nice.
			p, _ := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
			nice = 20 - p
		})
	}()
	<-done
	if nice < Nice {
		t.Errorf("the work ran at nice %d", nice)
	}
	if after, _ := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid()); after != before {
		t.Errorf("the caller's priority moved from %d to %d", before, after)
	}
}
