package adapter

import (
	"context"
	"fmt"
	"testing"
	"time"

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
