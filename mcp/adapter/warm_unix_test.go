//go:build unix

package adapter

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
)

// blockedWorkspace is a Git workspace whose .git/info/exclude is a FIFO:
// git check-ignore blocks opening it until it is killed, so reading it
// never ends by itself.
func blockedWorkspace(t *testing.T) (root string, b *Binding) {
	root = testws.Thin(t, map[string]string{"notes/a.md": "# A\n"})
	testws.Git(t, root, "init", "-q")
	exclude := filepath.Join(root, ".git", "info", "exclude")
	os.Remove(exclude)
	if err := syscall.Mkfifo(exclude, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if _, err := os.ReadDir("/proc"); err != nil {
		t.Skip("no /proc here to see git:", err)
	}
	b, err := Bind("ws0", root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Reader.Workspace().Close() })
	root, _ = filepath.EvalSymlinks(root)
	return root, b
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
	}
}

// The first call stops the background reading, even one stuck in git, and
// runs: it never waits behind it, nor meets server_busy for it.
func TestFirstCallStopsTheWarm(t *testing.T) {
	root, b := blockedWorkspace(t)
	s := NewServer([]*Binding{b}, Options{Warm: true, Producer: func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
		return small, nil
	}})
	s.startWarm(context.Background())
	waitFor(t, "the background reading never asked git", func() bool { return len(testws.ProcsIn(root)) > 0 })
	if got := answer(t, s, context.Background(), "ws0"); got != "known" {
		t.Fatalf("the first call: %s", got)
	}
	if pids := testws.ProcsIn(root); len(pids) != 0 {
		t.Errorf("git %v still runs for the stopped background reading", pids)
	}
}

// The background reading ends with the session: at the end of input,
// nothing of it is left running.
func TestWarmEndsWithTheSession(t *testing.T) {
	defer noLeak(t, goleak.IgnoreCurrent())
	root, b := blockedWorkspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, []*Binding{b}, Options{Warm: true}, sr, sw); sw.Close() }()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the background reading never asked git", func() bool { return len(testws.ProcsIn(root)) > 0 })
	cs.Close()
	cw.Close()
	if err := <-done; err != nil && !errors.Is(err, io.EOF) {
		t.Logf("serve: %v", err)
	}
	if pids := testws.ProcsIn(root); len(pids) != 0 {
		t.Errorf("git %v still runs after the session ended", pids)
	}
}
