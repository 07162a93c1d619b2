//go:build unix

package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
)

// Cancelling a call kills git and everything it started (its own process
// group). The cancel comes only once the child has written its pid, so it
// is known to be running; every wait is for an event, with a deadline of
// seconds that only a hung test reaches.
func TestRunGitCancelKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct{ err error }
	done := make(chan result, 1)
	go func() {
		// The pid goes to a temporary name first, so the file is whole
		// when it appears.
		_, _, err := policy.RunGit(ctx, dir, nil, "-c", "alias.wait=!echo $$ > "+pidFile+".tmp && mv "+pidFile+".tmp "+pidFile+"; exec sleep 60", "wait")
		done <- result{err}
	}()
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid <= 1; time.Sleep(10 * time.Millisecond) {
		select {
		case r := <-done:
			t.Fatalf("git ended before the cancel: %v", r.err)
		default:
		}
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			if pid <= 1 {
				t.Fatalf("the child wrote pid %q", b)
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never wrote its pid")
		}
	}
	cancel()
	select {
	case r := <-done:
		if reason.Of(r.err) != reason.ProducerUnavailable {
			t.Fatalf("a cancelled git call ended with %v", r.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled git call never returned")
	}
	for deadline := time.Now().Add(30 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("git's child %d survived the cancel", pid)
		}
	}
}

// alive reports whether pid is a process that has not exited: a zombie
// (killed, not yet reaped by whoever inherited it) counts as gone.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: signal 0 is all there is
	}
	// The state follows the command name, which is in parentheses.
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}
