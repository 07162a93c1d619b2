// Package idle runs background work at the lowest priority, so that it
// takes little time anything else wants: vivary-mcp reads its workspaces ahead of
// the first call this way. It owns no work of its own and must never raise
// a priority.
package idle

import "runtime"

// Nice is the background thread's nice value (Linux): the lowest
// priority an ordinary thread can take. Not SCHED_IDLE, which has a fifth
// of its share: a call waits for the background work to stop (finish the
// document in hand, keep what was read), and with 16 busy loops on two
// cores, one stop at 50,000 notes took 0.6 s at nice 19. A thread cannot win
// its priority back, so this one is let go when the work ends.
const Nice = 19

// Run runs fn on the calling goroutine, locked to a thread whose priority
// it lowers first; the thread is let go with the goroutine when it ends, so
// no other goroutine ever runs on it. Call it on a goroutine of its own.
func Run(fn func()) {
	runtime.LockOSThread()
	// No UnlockOSThread: the thread keeps its low priority and dies with
	// this goroutine instead of going back to the pool.
	lower()
	fn()
}
