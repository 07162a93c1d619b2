//go:build !linux

package idle

// lower leaves the thread as it is: no per-thread priority is portable
// here, and background work still yields to every call (the caller stops
// it first).
func lower() {}
