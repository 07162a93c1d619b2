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
)

// Cancelling a call kills git and everything it started (its own process
// group), long before the child would have finished.
func TestRunGitCancelKillsTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := policy.RunGit(ctx, dir, nil, "-c", "alias.wait=!echo $$ > "+pidFile+"; exec sleep 30", "wait")
	if err == nil {
		t.Fatal("a cancelled git call succeeded")
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("cancel took %v", elapsed)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the child never started: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("git's child %d survived the cancel", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The environment git sees is fixed: nothing inherited reaches it.
func TestRunGitEnvironmentIsFixed(t *testing.T) {
	t.Setenv("GIT_DIR", "/nonexistent")
	t.Setenv("VIVARY_SECRET", "hunter2")
	out, code, err := policy.RunGit(context.Background(), t.TempDir(), nil, "-c", "alias.env=!env", "env")
	if err != nil || code != 0 {
		t.Fatalf("%v %d", err, code)
	}
	if strings.Contains(string(out), "GIT_DIR=/nonexistent") || strings.Contains(string(out), "hunter2") {
		t.Fatalf("inherited environment reached git:\n%s", out)
	}
}
