package guard

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID, exact to the nanosecond, unlike getrusage's
// figure, which is stale until the next tick): it does not grow while
// other processes hold the cores, so the linear-time test keeps its
// ratios on a busy machine.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}

func lockThread()   { runtime.LockOSThread() }
func unlockThread() { runtime.UnlockOSThread() }
