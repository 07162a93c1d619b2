package adapter_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vivary-dev/vivary-go/internal/testws"
)

// vault is a thin workspace of n notes that all hold "wombat", written
// long enough ago that their stamps can prove them unchanged.
func vault(t *testing.T, n int) string {
	t.Helper()
	notes := map[string]string{}
	for i := range n {
		notes[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("# Note %d\n\nwombat %d quokka\n", i, i%7)
	}
	root := testws.Thin(t, notes)
	time.Sleep(80 * time.Millisecond) // past the racy window
	return root
}

// A vault too big for one call is answered all the same: each call that
// runs out of time is refused with advice to call again, keeps what it
// read, and a client that calls again after each refusal gets the answer,
// the same answer a server that read it in one call gives, notes changed
// between the calls included. (The test producer budget:N cuts each call
// after N documents read afresh and holds it to its timeout: a server that
// kept nothing would never answer.)
func TestRefusedCallsConverge(t *testing.T) {
	t.Parallel()
	const notes, budget = 300, 100
	root := vault(t, notes)
	s := start(t, opts{env: []string{"VIVARY_MCP_TEST_WARM=off", "VIVARY_MCP_TEST_TIMEOUT=4s", fmt.Sprintf("VIVARY_MCP_TEST_PRODUCER=budget:%d", budget)}}, root)
	query := map[string]any{"workspace": "ws0", "text": "wombat quokka", "limit": 20}
	var final *envelope
	calls := 0
	for calls < 20 && final == nil {
		calls++
		_, e, err := s.call("vivary_query", query)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Status == "known":
			final = e
		case *e.Reason != "producer_unavailable" || !strings.Contains(e.Message, "call again"):
			t.Fatalf("call %d: %s %q", calls, *e.Reason, e.Message)
		case calls == 1:
			// Notes change between the calls, wherever the first one got
			// to: what is served must be them as they are now.
			for i := 0; i < notes; i += 25 {
				testws.Write(t, root, fmt.Sprintf("notes/n%03d.md", i), fmt.Sprintf("# Changed %d\n\nwombat wombat quokka quokka\n", i))
			}
		}
	}
	if final == nil {
		t.Fatalf("no answer after %d calls", calls)
	}
	if calls == 1 {
		t.Fatalf("the first call answered: the budget producer did not cut it")
	}
	fresh := start(t, opts{}, root)
	_, want, err := fresh.call("vivary_query", query)
	if err != nil || want.Status != "known" {
		t.Fatalf("a fresh server: %v %+v", err, want)
	}
	if string(final.Result) != string(want.Result) {
		t.Errorf("after %d calls:\n%s\na fresh server:\n%s", calls, final.Result, want.Result)
	}
}

// A call that carries a progressToken is told, while its cold work runs,
// how many documents are done of how many are known: counts under its own
// token, never a name. (The test producer hold:PATH answers only once PATH
// exists, so the call lasts until the client has seen progress.)
func TestProgressNotifications(t *testing.T) {
	t.Parallel()
	const notes = 120
	root := vault(t, notes)
	gate := filepath.Join(t.TempDir(), "gate")
	var mu sync.Mutex
	var seen []*mcp.ProgressNotificationParams
	s := start(t, opts{env: []string{"VIVARY_MCP_TEST_WARM=off", "VIVARY_MCP_TEST_PRODUCER=hold:" + gate}, progress: func(p *mcp.ProgressNotificationParams) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, p)
	}}, root)
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(seen)
	}
	answered := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "vivary_query", Arguments: map[string]any{"workspace": "ws0", "text": "wombat"}}
		params.SetProgressToken("tok-7")
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res, err := s.cs.CallTool(ctx, params)
		if err == nil && res.IsError {
			err = fmt.Errorf("refused: %v", res.StructuredContent)
		}
		answered <- err
	}()
	if !eventuallyWithin(30*time.Second, func() bool { return count() > 0 }) {
		t.Fatal("no progress notification while the call ran")
	}
	// The producer holds its answer only after its reads, so progress
	// reaches every note while it is held; the gate opens once it has
	// (else a slow machine's answer could come before the last tick).
	whole := func() bool {
		mu.Lock()
		defer mu.Unlock()
		p := seen[len(seen)-1]
		return p.Total >= notes && p.Progress == p.Total
	}
	if !eventuallyWithin(30*time.Second, whole) {
		t.Fatal("progress never reached every note while the call was held")
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	last := -1.0
	for _, p := range seen {
		if p.ProgressToken != "tok-7" || p.Message != "" || p.Progress <= last || p.Progress > p.Total {
			t.Errorf("progress %+v after %v", p, last)
		}
		last = p.Progress
	}
	if p := seen[len(seen)-1]; p.Total < notes || p.Progress != p.Total {
		t.Errorf("last progress %v of %v; the workspace has over %d notes, all read", p.Progress, p.Total, notes)
	}
}
