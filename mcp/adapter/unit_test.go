package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
)

func TestDiagnosticVectors(t *testing.T) {
	var buf bytes.Buffer
	d := NewDiagnostics(&buf, ObserveErrors)
	d.Emit(Diag{Event: "tool_started", Tool: ToolQuery, InputBytes: 99, ElapsedMS: -1, OutputBytes: -1})
	d.Emit(Diag{Event: "tool_refused", Tool: ToolQuery, Outcome: "refused", Reason: "secret=/private/path", ElapsedMS: 12, InputBytes: 99, OutputBytes: 101})
	if buf.String() != "vivary-mcp event=tool_refused sequence=1 tool=vivary_query outcome=refused elapsed_ms=12\n" {
		t.Fatalf("errors mode: %q", buf.String())
	}
	buf.Reset()
	d = NewDiagnostics(&buf, ObserveJSON)
	d.Emit(Diag{Event: "tool_completed", Tool: ToolQuery, Outcome: "known", Reason: "safe_reason", ElapsedMS: 12, InputBytes: 99, OutputBytes: 101})
	d.Emit(Diag{Event: "tool_completed", Tool: "not_a_tool", Outcome: "unsafe", Reason: "a/b", ElapsedMS: -1, InputBytes: 1 << 53, OutputBytes: -1})
	want := `{"elapsed_ms":12,"event":"tool_completed","input_bytes":99,"outcome":"known","output_bytes":101,"reason":"safe_reason","schema":"vivary.mcp-observability/v0","sequence":1,"tool":"vivary_query"}` + "\n" +
		`{"event":"tool_completed","schema":"vivary.mcp-observability/v0","sequence":2}` + "\n"
	if buf.String() != want {
		t.Fatalf("json mode:\n%s\nwant\n%s", buf.String(), want)
	}
	buf.Reset()
	NewDiagnostics(&buf, ObserveOff).Emit(Diag{Event: "tool_refused"})
	if buf.Len() != 0 {
		t.Fatal("off mode wrote")
	}
}

func TestFrameReaderBoundaries(t *testing.T) {
	exact := "{}" + strings.Repeat(" ", 65533) + "\n"
	over := strings.Repeat("x", 65536) + "\n"
	f := NewFrameReader(strings.NewReader(exact + "{}\n"))
	if b, err := f.Next(); err != nil || len(b) != 65535 {
		t.Fatalf("exact frame: %d %v", len(b), err)
	}
	if b, err := f.Next(); err != nil || string(b) != "{}" {
		t.Fatalf("next frame: %q %v", b, err)
	}
	if _, err := f.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
	f = NewFrameReader(strings.NewReader(over + "{}\n"))
	if _, err := f.Next(); !errors.Is(err, ErrFrame) || f.Why() != "frame_too_long" {
		t.Fatalf("over: %v %s", err, f.Why())
	}
	if _, err := f.Next(); !errors.Is(err, ErrFrame) {
		t.Fatal("the reader went on after a refused frame")
	}
	for in, why := range map[string]string{"{}": "frame_unterminated", "{\"a\":\"\xff\"}\n": "frame_not_utf8",
		strings.Repeat("x", 70000): "frame_too_long"} {
		f := NewFrameReader(strings.NewReader(in))
		if _, err := f.Next(); !errors.Is(err, ErrFrame) || f.Why() != why {
			t.Fatalf("%.20q: %v %s, want %s", in, err, f.Why(), why)
		}
	}
}

func FuzzFrameReader(f *testing.F) {
	f.Add([]byte("{}\n{}\n"))
	f.Add([]byte("\n\n"))
	f.Add([]byte("abc"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewFrameReader(bytes.NewReader(data))
		total := 0
		for i := 0; i < 10000; i++ {
			b, err := r.Next()
			if err != nil {
				return
			}
			if len(b)+1 > MaxFrameBytes || bytes.ContainsRune(b, '\n') {
				t.Fatalf("frame of %d bytes or with a newline", len(b))
			}
			total += len(b) + 1
			if total > len(data) {
				t.Fatal("read more than the input")
			}
		}
	})
}

func FuzzValidateArgs(f *testing.F) {
	for _, s := range []string{`{"workspace":"a","text":"x"}`, `{"workspace":"a","text":"x","limit":5.0}`, `{"workspace":"a","paths":["a/../b"]}`,
		`null`, `[]`, `{"workspace":"a","question":"q","max_claims":24}`, `{"workspace":"a","workspace":"b","text":"x"}`} {
		f.Add(ToolQuery, s)
		f.Add(ToolCheck, s)
		f.Add(ToolCapsule, s)
	}
	f.Fuzz(func(t *testing.T, tool, raw string) {
		a, err := validateArgs(tool, json.RawMessage(raw))
		if err != nil {
			// A refusal names an argument only in the shape of a schema
			// key, and its detail is a short sentence safe to show.
			var ae *argError
			if !errors.As(err, &ae) || (ae.arg != "" && !nameShape.MatchString(ae.arg)) || !guard.OutputSafe(ae.detail, 512) {
				t.Fatalf("refusal %#v", err)
			}
			return
		}
		if !ValidAlias(a.Workspace) {
			t.Fatalf("accepted alias %q", a.Workspace)
		}
		if a.Limit < 1 || a.Limit > 20 || a.Budget < 64 || a.Budget > 4000 || a.MaxClaims < 0 || a.MaxClaims > 24 || a.SnippetChars < 0 || a.SnippetChars > 1000 {
			t.Fatalf("out of range %+v", a)
		}
		for _, p := range a.CheckPaths {
			if !guard.RelPathShape(p) {
				t.Fatalf("unsafe path %q", p)
			}
		}
		if tool != ToolCheck && guard.TrimSpace(a.Text) == "" {
			t.Fatalf("accepted blank text %q", a.Text)
		}
	})
}

// Text that Python's strip() empties is invalid, whatever whitespace it is.
func TestBlankTextIsInvalid(t *testing.T) {
	for _, text := range []string{` `, `\t\n`, `\u00a0`, `\u3000`, `\u001c\u001f`, `\u2028`} {
		raw := `{"workspace":"a","text":"` + text + `"}`
		var ae *argError
		if _, err := validateArgs(ToolQuery, json.RawMessage(raw)); !errors.As(err, &ae) || ae.detail != "text must not be empty or whitespace" {
			t.Errorf("%s: %v, want invalid arguments", raw, err)
		}
	}
}

func TestFirewall(t *testing.T) {
	root := "/srv/ws"
	for _, bad := range []any{
		map[string]any{"command": "x"},
		map[string]any{"a": []any{map[string]any{"evidence": 1}}},
		map[string]any{"a": "line\nbreak"},
		map[string]any{"a": "zero\u200bwidth"},
		map[string]any{"a": "under /srv/ws/notes"},
		map[string]any{"a": "token: s3cr3t-value"},
		map[string]any{"a": "git:pw@host:repo"},
		map[string]any{"a": "see /home/user/x.md"},
		[]any{"not an object"},
	} {
		if _, _, err := firewall(bad, root); err == nil {
			t.Errorf("firewall passed %v", bad)
		}
	}
	raw, complete, err := firewall(map[string]any{"a": "guides/start.md", "b": "https://example.test/docs", "complete": false}, root)
	if err != nil || complete || raw.(map[string]any)["a"] != "guides/start.md" {
		t.Fatalf("%s %v %v", raw, complete, err)
	}
}

func TestResponseLimitBoundary(t *testing.T) {
	// Find the largest blob that still fits, then one byte more must not.
	mk := func(n int) *Envelope {
		return success(ToolCheck, "docs", map[string]any{"blob": strings.Repeat("a<", n/2) + strings.Repeat("\"", n%2)}, true)
	}
	lo, hi := 0, MaxResponseBytes
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if _, e, _ := toolResult(mk(mid)); e.Status == "known" {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	res, n, _ := render(mk(lo))
	if n+ResponseAllowance > MaxResponseBytes || n+ResponseAllowance < MaxResponseBytes-16 {
		t.Fatalf("largest accepted response is %d bytes", n)
	}
	// The count is exact for what the SDK writes.
	wire, _ := json.Marshal(res)
	if len(wire) > n {
		t.Fatalf("counted %d bytes, the SDK writes %d", n, len(wire))
	}
	if _, e, _ := toolResult(mk(lo + 1)); e.Status != "unknown" || *e.Reason != "response_limit_exceeded" {
		t.Fatal("one byte over the limit was accepted")
	}
}

// The in-process server leaks no goroutine once the session ends.
func TestNoGoroutineLeak(t *testing.T) {
	defer noLeak(t, goleak.IgnoreCurrent())
	root := testws.Thin(t, nil)
	b, err := Bind("docs", root)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Reader.Workspace().Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, []*Binding{b}, Options{}, sr, sw); sw.Close() }()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolCheck, Arguments: map[string]any{"workspace": "docs"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	cw.Close()
	if err := <-done; err != nil && !errors.Is(err, io.EOF) {
		t.Logf("serve: %v", err)
	}
}

// noLeak fails t unless, within a deadline only a leak reaches, no
// goroutine is left but those opts ignore. goleak alone gives up after
// about half a second, which goroutines on their way out can outlast on a
// busy machine.
func noLeak(t *testing.T, opts ...goleak.Option) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		err := goleak.Find(opts...)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Error(err)
			return
		}
	}
}

func TestCodeOf(t *testing.T) {
	for err, want := range map[error]reason.Code{
		reason.New(reason.PathRefused, "x"):              reason.PathRefused,
		reason.New(reason.InvalidArguments, "x"):         reason.ProducerUnavailable,
		context.Canceled:                                 reason.ProducerUnavailable,
		reason.New(reason.WorkLimitExceeded, "x"):        reason.WorkLimitExceeded,
		errors.New("boom"):                               reason.ProducerUnavailable,
		reason.New(reason.PrivacyPolicyUnavailable, "x"): reason.PrivacyPolicyUnavailable,
	} {
		if got := codeOf(err); got != want {
			t.Errorf("%v: %s", err, got)
		}
	}
	_ = produce.QuerySchemaID
}

// BenchmarkWireOverhead is the adapter's cost for one call with a 10 KiB
// result: the producer returns a prepared value at once, so the round trip
// is the wire overhead (framing, validation, firewall, envelope, size check).
func BenchmarkWireOverhead(b *testing.B) {
	root := testws.Thin(b, nil)
	bind, _ := Bind("docs", root)
	defer bind.Reader.Workspace().Close()
	result := map[string]any{"schema": "vivary.check-result/v0", "complete": true, "text": strings.Repeat("quokka ", 1463)}
	opts := Options{Producer: func(context.Context, string, *produce.Reader, *args) (any, error) { return result, nil }}
	ctx := context.Background()
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	go Serve(ctx, []*Binding{bind}, opts, sr, sw)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: ToolCheck, Arguments: map[string]any{"workspace": "docs"}}
	for b.Loop() {
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdapterOverhead is the adapter's own share of one call with a
// 10 KiB result, without a client: validation, the slot, the firewall, the
// envelope, the size check and the wire encoding of the result.
func BenchmarkAdapterOverhead(b *testing.B) {
	root := testws.Thin(b, nil)
	bind, _ := Bind("docs", root)
	defer bind.Reader.Workspace().Close()
	result := map[string]any{"schema": "vivary.check-result/v0", "complete": true, "text": strings.Repeat("quokka ", 1463)}
	s := NewServer([]*Binding{bind}, Options{Producer: func(context.Context, string, *produce.Reader, *args) (any, error) { return result, nil }})
	h := s.handler(ToolCheck)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: ToolCheck, Arguments: json.RawMessage(`{"workspace":"docs"}`)}}
	ctx := context.Background()
	for b.Loop() {
		res, err := h(ctx, req)
		if err != nil || res.IsError {
			b.Fatal(err)
		}
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSlotFreeBeforeTheAnswer: when a call's answer is handed back, its
// slot is already free, so a strictly sequential client never meets
// server_busy. Rounds, not time: the old order (answer, then release) is
// caught in some of them.
func TestSlotFreeBeforeTheAnswer(t *testing.T) {
	s := NewServer(nil, Options{Producer: func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
		return map[string]any{"schema": "x", "complete": true}, nil
	}})
	b := &Binding{Alias: "ws0", Reader: produce.NewReader(nil)}
	for round := 0; round < 2000; round++ {
		out, _ := s.run(context.Background(), ToolCheck, b, &args{Workspace: "ws0"}, nil)
		if out.envelope == nil {
			t.Fatal("no envelope")
		}
		s.slotMu.Lock()
		busy := s.busy
		s.slotMu.Unlock()
		if busy {
			t.Fatalf("round %d: the answer came back while the slot was held", round)
		}
	}
}
