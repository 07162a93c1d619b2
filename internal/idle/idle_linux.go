package idle

import "golang.org/x/sys/unix"

// lower sets the calling thread's nice value to Nice.
func lower() {
	_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), Nice)
}
