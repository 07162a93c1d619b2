//go:build unix

package produce_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/capsule"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
)

// blockedGit is a workspace whose .git/info/exclude is a FIFO, so git
// check-ignore blocks opening it until it is killed, and the four producers
// as calls on it.
func blockedGit(tb testing.TB) (root string, calls []namedCall) {
	root = fixture(tb)
	testws.Git(tb, root, "init", "-q")
	exclude := filepath.Join(root, ".git", "info", "exclude")
	os.Remove(exclude)
	if err := syscall.Mkfifo(exclude, 0o644); err != nil {
		tb.Skip("no FIFOs here:", err)
	}
	if _, err := os.ReadDir("/proc"); err != nil {
		tb.Skip("no /proc here to see git:", err)
	}
	ws := bindWS(tb, root)
	root, _ = filepath.EvalSymlinks(root)
	return root, []namedCall{
		{"query", func(ctx context.Context) error {
			_, err := produce.Query(ctx, ws, produce.QueryArgs{Text: "quokka", Limit: 1})
			return err
		}},
		{"find", func(ctx context.Context) error {
			_, err := produce.Find(ctx, ws, produce.FindArgs{Question: "quokka", Limit: 1, Budget: 1200})
			return err
		}},
		{"check", func(ctx context.Context) error {
			_, err := produce.Check(ctx, ws, produce.CheckArgs{})
			return err
		}},
		{"capsule", func(ctx context.Context) error {
			_, err := capsule.Compile(ctx, produce.NewReader(ws), capsule.Args{Question: "quokka", MaxClaims: 24})
			return err
		}},
	}
}

// startBlocked starts call and returns once git runs for it, so a cancel
// after it has a git to kill.
func startBlocked(tb testing.TB, root string, c namedCall) (cancel func(), done <-chan error) {
	ctx, cancel := context.WithCancel(bg)
	ch := make(chan error, 1)
	go func() { ch <- c.call(ctx) }()
	for deadline := time.Now().Add(30 * time.Second); len(testws.ProcsIn(root)) == 0; time.Sleep(5 * time.Millisecond) {
		select {
		case err := <-ch:
			cancel()
			tb.Fatalf("%s ended before git blocked: %v", c.name, err)
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			tb.Fatalf("%s: git never started", c.name)
		}
	}
	return cancel, ch
}

// A cancel while git runs ends every producer with the cancel's reason, and
// git is gone by the time the call returns. How soon is a figure, not a
// test: BenchmarkCancelARunningGit.
func TestCancellationKillsARunningGit(t *testing.T) {
	t.Parallel()
	root, calls := blockedGit(t)
	for _, c := range calls {
		cancel, done := startBlocked(t, root, c)
		cancel()
		select {
		case err := <-done:
			if reason.Of(err) != reason.ProducerUnavailable {
				t.Fatalf("%s: %v", c.name, err)
			}
		case <-time.After(30 * time.Second):
			// git's own timeout is 10 s: only a lost cancel gets here.
			t.Fatalf("%s never returned after the cancel", c.name)
		}
		if pids := testws.ProcsIn(root); len(pids) != 0 {
			t.Fatalf("%s returned while git %v still runs", c.name, pids)
		}
	}
}

// BenchmarkCancelARunningGit is the time from a cancel to the return of a
// query whose git is blocked (the claim was: within 50 ms).
func BenchmarkCancelARunningGit(b *testing.B) {
	root, calls := blockedGit(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cancel, done := startBlocked(b, root, calls[0])
		b.StartTimer()
		cancel()
		if err := <-done; reason.Of(err) != reason.ProducerUnavailable {
			b.Fatal(err)
		}
	}
}

type namedCall struct {
	name string
	call func(context.Context) error
}
