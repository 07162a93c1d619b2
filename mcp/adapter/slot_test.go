package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
)

// The slot, its timeout, grace and quarantine are tested in a bubble of fake
// time (testing/synctest): the published durations are used as they are,
// every instant is exact, and a loaded machine changes nothing.

// slotServer is a Server over one thin workspace bound as ws0 with the
// producer p; it must be called outside a bubble (Bind opens the root).
func slotServer(t *testing.T) (bind *Binding) {
	t.Helper()
	b, err := Bind("ws0", testws.Thin(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Reader.Workspace().Close() })
	return b
}

// answer is one call's outcome as a client sees it: the reason ("known" for
// none), or "cancelled" when no answer came.
func answer(t *testing.T, s *Server, ctx context.Context, alias string) string {
	t.Helper()
	res, err := s.handler(ToolCheck)(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
		Name: ToolCheck, Arguments: json.RawMessage(`{"workspace":"` + alias + `"}`)}})
	if err != nil {
		if ctx.Err() != nil {
			return "cancelled"
		}
		t.Fatalf("call: %v", err)
	}
	var e Envelope
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &e); err != nil {
		t.Fatal(err)
	}
	if e.Reason == nil {
		return "known"
	}
	return *e.Reason
}

var small = map[string]any{"schema": "x", "complete": true}

// A producer that ignores cancellation is answered for at timeout plus
// grace; the slot stays taken (server_busy, unknown aliases still named)
// until that producer really returns, and the next call then runs in full.
func TestTimeoutGraceQuarantine(t *testing.T) {
	b := slotServer(t)
	synctest.Test(t, func(t *testing.T) {
		const stall = 2 * time.Minute
		var calls atomic.Int64
		var diag bytes.Buffer
		s := NewServer([]*Binding{b}, Options{Diag: NewDiagnostics(&diag, ObserveJSON),
			Producer: func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
				if calls.Add(1) == 1 {
					time.Sleep(stall) // deaf to ctx
					return nil, reason.New(reason.ProducerUnavailable, "stalled")
				}
				// Later calls take most of the timeout: a follow-up is
				// never cut short by what the first call did.
				time.Sleep(ProducerTimeout - time.Second)
				return small, nil
			}})
		begin := time.Now()
		if got := answer(t, s, t.Context(), "ws0"); got != "producer_unavailable" {
			t.Fatalf("stalled call: %s", got)
		}
		if took := time.Since(begin); took != ProducerTimeout+CancellationGrace {
			t.Fatalf("the stalled call was answered after %v, want timeout %v plus grace %v", took, ProducerTimeout, CancellationGrace)
		}
		if !strings.Contains(diag.String(), `"event":"tool_timed_out"`) {
			t.Errorf("no tool_timed_out diagnostic:\n%s", diag.String())
		}
		if got := answer(t, s, t.Context(), "ws0"); got != "server_busy" {
			t.Fatalf("call during quarantine: %s", got)
		}
		if got := answer(t, s, t.Context(), "nope"); got != "unknown_workspace" {
			t.Fatalf("unknown alias during quarantine: %s", got)
		}
		time.Sleep(stall - time.Since(begin) - time.Nanosecond)
		if got := answer(t, s, t.Context(), "ws0"); got != "server_busy" {
			t.Fatalf("call just before the stalled producer returns: %s", got)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got := answer(t, s, t.Context(), "ws0"); got != "known" {
			t.Fatalf("call after the stalled producer returned: %s", got)
		}
		if n := calls.Load(); n != 2 {
			t.Fatalf("the producer ran %d times, want 2 (busy calls never reach it)", n)
		}
	})
}

// While a call holds the slot a second one is refused with server_busy at
// once; the first is answered in full, and the slot is free after it.
func TestConcurrentCallIsRefused(t *testing.T) {
	b := slotServer(t)
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		s := NewServer([]*Binding{b}, Options{Producer: func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
			<-release
			return small, nil
		}})
		first := make(chan string, 1)
		go func() { first <- answer(t, s, t.Context(), "ws0") }()
		synctest.Wait() // the first call is inside its producer
		if got := answer(t, s, t.Context(), "ws0"); got != "server_busy" {
			t.Fatalf("second call: %s", got)
		}
		close(release)
		if got := <-first; got != "known" {
			t.Fatalf("first call: %s", got)
		}
		if got := answer(t, s, t.Context(), "ws0"); got != "known" {
			t.Fatalf("call after the first: %s", got)
		}
	})
}

// A cancelled call gets no answer; a cooperative producer frees the slot as
// it returns, and one deaf to the cancel keeps it past the grace.
func TestCancelAndTheSlot(t *testing.T) {
	b := slotServer(t)
	for _, deaf := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			var calls atomic.Int64
			s := NewServer([]*Binding{b}, Options{Producer: func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
				if calls.Add(1) > 1 {
					return small, nil
				}
				if deaf {
					time.Sleep(time.Hour)
				} else {
					<-ctx.Done()
				}
				return nil, ctx.Err()
			}})
			ctx, cancel := context.WithCancel(t.Context())
			got := make(chan string, 1)
			go func() { got <- answer(t, s, ctx, "ws0") }()
			synctest.Wait()
			// The probe a cancel must free: a bound alias, refused while the slot is held.
			if r := answer(t, s, t.Context(), "ws0"); r != "server_busy" {
				t.Fatalf("probe while the call runs: %s", r)
			}
			cancel()
			if r := <-got; r != "cancelled" {
				t.Fatalf("cancelled call: %s", r)
			}
			want := "known"
			if deaf {
				want = "server_busy"
			}
			if r := answer(t, s, t.Context(), "ws0"); r != want {
				t.Fatalf("deaf=%v: probe after the cancel: %s, want %s", deaf, r, want)
			}
			if deaf {
				time.Sleep(time.Hour)
				synctest.Wait()
				if r := answer(t, s, t.Context(), "ws0"); r != "known" {
					t.Fatalf("probe once the deaf producer returned: %s", r)
				}
			}
		})
	}
}
