package adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// warmDone waits for the background reader to end by itself.
func warmDone(t *testing.T, s *Server) {
	t.Helper()
	s.warmMu.Lock()
	done := s.warmDone
	s.warmMu.Unlock()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the background reading never ended")
	}
}

// The background reading at startup leaves the first call nothing to read,
// and writes nothing.
func TestWarmReadsAhead(t *testing.T) {
	notes := map[string]string{}
	for i := range 60 {
		notes[fmt.Sprintf("notes/n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nwombat %d\n", i, i)
	}
	root := testws.Thin(t, notes)
	time.Sleep(80 * time.Millisecond) // past the racy window, so what was read can be kept
	before := testws.Hash(t, root)
	b, err := Bind("ws0", root)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Reader.Workspace().Close()
	s := NewServer([]*Binding{b}, Options{Warm: true})
	s.startWarm(context.Background())
	warmDone(t, s)
	m := &snapshot.Meter{}
	res, err := b.Reader.Query(snapshot.WithMeter(context.Background(), m), produce.QueryArgs{Text: "wombat", Limit: 5})
	if err != nil || len(res.Results) == 0 {
		t.Fatalf("the first call: %v %+v", err, res)
	}
	if n := m.Read(); n != 0 {
		t.Errorf("the first call read %d notes; the background reading had read them all", n)
	}
	if testws.Hash(t, root) != before {
		t.Error("the background reading changed the workspace")
	}
}

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

// gitsIn lists the live processes working in root or below it.
func gitsIn(root string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err == nil && (cwd == root || strings.HasPrefix(cwd, root+"/")) {
			pids = append(pids, pid)
		}
	}
	return pids
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
	waitFor(t, "the background reading never asked git", func() bool { return len(gitsIn(root)) > 0 })
	if got := answer(t, s, context.Background(), "ws0"); got != "known" {
		t.Fatalf("the first call: %s", got)
	}
	if pids := gitsIn(root); len(pids) != 0 {
		t.Errorf("git %v still runs for the stopped background reading", pids)
	}
}

// The background reading ends with the session: at the end of input,
// nothing of it is left running.
func TestWarmEndsWithTheSession(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
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
	waitFor(t, "the background reading never asked git", func() bool { return len(gitsIn(root)) > 0 })
	cs.Close()
	cw.Close()
	if err := <-done; err != nil && !errors.Is(err, io.EOF) {
		t.Logf("serve: %v", err)
	}
	if pids := gitsIn(root); len(pids) != 0 {
		t.Errorf("git %v still runs after the session ended", pids)
	}
}
