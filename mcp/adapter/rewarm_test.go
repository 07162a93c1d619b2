package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// rewarmServer is a server over 120 notes whose session began without
// background reading (as when the first call comes at once): its first
// question is answered from an index focused on it. It counts the calls
// whose producer started while background work ran, and records each
// call's progress total (the notes it read again for its index).
type rewarmServer struct {
	*Server
	b      *Binding
	root   string
	beside atomic.Int32
	mu     sync.Mutex
	totals []int64
}

func newRewarmServer(t *testing.T) *rewarmServer {
	t.Helper()
	words := []string{"gate", "frame", "budget", "cache", "timeout"}
	notes := map[string]string{}
	for i := range 120 {
		notes[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("# Note %d\n\nwombat %d quokka %s\n", i, i%7, words[i%5])
	}
	root := testws.Thin(t, notes)
	time.Sleep(80 * time.Millisecond) // past the racy window, so what was read can be kept
	b, err := Bind("ws0", root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Reader.Workspace().Close() })
	rs := &rewarmServer{b: b, root: root}
	rs.Server = NewServer([]*Binding{b}, Options{Warm: true, Grace: time.Minute,
		Producer: func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
			if rs.warmRunning() {
				rs.beside.Add(1)
			}
			res, err := runProducer(ctx, tool, r, a)
			_, total := snapshot.MeterOf(ctx).Counts()
			rs.mu.Lock()
			rs.totals = append(rs.totals, total)
			rs.mu.Unlock()
			return res, err
		}})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); rs.stopWarm() })
	rs.warmMu.Lock()
	rs.warmCtx = ctx
	rs.warmMu.Unlock()
	return rs
}

func (s *Server) warmRunning() bool {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if s.warmDone == nil {
		return false
	}
	select {
	case <-s.warmDone:
		return false
	default:
		return true
	}
}

// ask calls vivary_query and returns its outcome and the notes it read
// again for its index.
func (rs *rewarmServer) ask(t *testing.T, question string) (string, int64) {
	t.Helper()
	got, total, err := rs.try(question)
	if err != nil {
		t.Fatal(err)
	}
	return got, total
}

func (rs *rewarmServer) try(question string) (string, int64, error) {
	raw, _ := json.Marshal(map[string]any{"workspace": "ws0", "text": question, "limit": 5})
	res, err := rs.handler(ToolQuery)(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
		Name: ToolQuery, Arguments: raw}})
	if err != nil {
		return "", 0, err
	}
	var e Envelope
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &e); err != nil {
		return "", 0, err
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var total int64
	if len(rs.totals) > 0 {
		total = rs.totals[len(rs.totals)-1]
	}
	if e.Reason != nil {
		return *e.Reason, total, nil
	}
	return "known", total, nil
}

// backgroundEnds waits for the background work a call started to end by
// itself.
func (rs *rewarmServer) backgroundEnds(t *testing.T) {
	t.Helper()
	rs.warmMu.Lock()
	done := rs.warmDone
	rs.warmMu.Unlock()
	if done == nil {
		t.Fatal("no background work after a focused answer")
	}
	warmDoneWithin(t, done)
}

func warmDoneWithin(t *testing.T, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the background work never ended")
	}
}

// After a call answered from an index focused on its question, the server
// builds the full index in the background: a new question is then
// answered without reading any note again for its index, and nothing is
// written.
func TestBackgroundBuildsTheFullIndexAfterAFocusedAnswer(t *testing.T) {
	rs := newRewarmServer(t)
	before := testws.Hash(t, rs.root)
	if got, total := rs.ask(t, "wombat"); got != "known" || total == 0 {
		t.Fatalf("the first question: %s, %d notes read for its index", got, total)
	}
	rs.backgroundEnds(t)
	if rs.b.Reader.Pending() {
		t.Fatal("the background work ended with the full index incomplete")
	}
	if got, total := rs.ask(t, "quokka budget"); got != "known" || total != 0 {
		t.Errorf("a new question after the background build: %s, %d notes read again for its index", got, total)
	}
	if rs.warmRunning() {
		t.Error("background work started after a call answered from the full index")
	}
	if n := rs.beside.Load(); n != 0 {
		t.Errorf("%d calls ran beside the background work", n)
	}
	if testws.Hash(t, rs.root) != before {
		t.Error("the background work changed the workspace")
	}
}

// gatedCtx holds the background work at its first look at the context
// until released, so a call surely comes while it runs.
type gatedCtx struct {
	context.Context
	once             sync.Once
	entered, release chan struct{}
}

func (g *gatedCtx) Err() error {
	g.once.Do(func() {
		close(g.entered)
		<-g.release
	})
	return g.Context.Err()
}

// A call that comes while the background build runs stops it and waits
// for it to end before its producer runs (never beside it, never
// server_busy); the build takes up what it did after the call, and the
// full index then answers.
func TestCallStopsTheBackgroundBuild(t *testing.T) {
	rs := newRewarmServer(t)
	g := &gatedCtx{entered: make(chan struct{}), release: make(chan struct{})}
	warmContext = func(ctx context.Context) context.Context {
		if g.Context == nil {
			g.Context = ctx
			return g
		}
		return ctx
	}
	defer func() { warmContext = nil }()
	if got, _ := rs.ask(t, "wombat"); got != "known" {
		t.Fatalf("the first question: %s", got)
	}
	select {
	case <-g.entered:
	case <-time.After(2 * time.Minute):
		t.Fatal("no background work after a focused answer")
	}
	type outcome struct {
		got   string
		total int64
		err   error
	}
	second := make(chan outcome, 1)
	go func() {
		got, total, err := rs.try("quokka budget")
		second <- outcome{got, total, err}
	}()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
		rs.slotMu.Lock()
		busy := rs.busy
		rs.slotMu.Unlock()
		if busy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second call never took the slot")
		}
	}
	close(g.release)
	if o := <-second; o.err != nil || o.got != "known" || o.total == 0 {
		t.Fatalf("the second question: %s %v, %d notes read for its index", o.got, o.err, o.total)
	}
	if n := rs.beside.Load(); n != 0 {
		t.Fatalf("%d calls ran beside the background work", n)
	}
	rs.backgroundEnds(t)
	if got, total := rs.ask(t, "gate cache"); got != "known" || total != 0 {
		t.Errorf("a new question after the background build: %s, %d notes read again for its index", got, total)
	}
}
