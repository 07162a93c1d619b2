//go:build !linux

package guard

import "time"

var start = time.Now()

// threadCPU falls back to the wall clock where a thread's CPU time cannot
// be read.
func threadCPU() time.Duration { return time.Since(start) }

func lockThread()   {}
func unlockThread() {}
