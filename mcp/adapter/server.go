// Package adapter is vivary-mcp: a read-only MCP server over standard input
// and output with exactly four tools. It owns the wire (frames, schemas,
// argument validation, the result envelope, the response limit), the single
// producer slot with its timeout and quarantine, and sanitary diagnostics.
// It must never write, persist, open a socket, accept a root from a caller,
// or return a partial answer as a whole one; producers come from the core
// module, which knows nothing of MCP.
package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/capsule"
	"github.com/vivary-dev/vivary-go/internal/version"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/snapshot"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Binding is one operator-bound workspace.
type Binding struct {
	Alias  string
	Reader *produce.Reader
}

// Producer runs one tool call against a bound workspace. The default calls
// the core producers; tests swap it through Options.
type Producer func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error)

// Options configure a Server. Zero values take the published limits.
type Options struct {
	Timeout  time.Duration
	Grace    time.Duration
	Producer Producer
	Diag     *Diagnostics
	// Warm reads the workspaces in the background until the first call,
	// and builds a workspace's full index between calls once a call was
	// answered from a focused one (see warm.go); Serve does it for
	// vivary-mcp.
	Warm bool
}

// Server is the adapter state shared by every call. One producer runs at a
// time (the slot); between calls, one background worker at the lowest
// priority reads the workspaces ahead of the first call and, after a call
// answered from an index focused on its question, builds the full index
// (warm.go). A call stops that worker before its producer runs.
type Server struct {
	bindings map[string]*Binding
	order    []*Binding // as bound
	opts     Options
	diag     *Diagnostics

	slotMu sync.Mutex
	busy   bool

	warmMu   sync.Mutex
	warmCtx  context.Context    // the session's, set by startWarm
	warmStop context.CancelFunc // nil once stopped
	warmDone chan struct{}
}

const instructions = "Read-only local context over operator-bound Vivary workspaces. Workspace aliases are configured by the operator; no tool can change state, run a caller's command or widen authority."

// NewServer returns the adapter over the bindings.
func NewServer(bindings []*Binding, opts Options) *Server {
	if opts.Timeout == 0 {
		opts.Timeout = ProducerTimeout
	}
	if opts.Grace == 0 {
		opts.Grace = CancellationGrace
	}
	if opts.Producer == nil {
		opts.Producer = runProducer
	}
	s := &Server{bindings: map[string]*Binding{}, opts: opts, diag: opts.Diag}
	for _, b := range bindings {
		s.bindings[b.Alias] = b
		s.order = append(s.order, b)
	}
	return s
}

var annotations = &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: boolPtr(false), IdempotentHint: true, OpenWorldHint: boolPtr(false)}

func boolPtr(b bool) *bool { return &b }

var descriptions = map[string]string{
	ToolFind:    "Bounded, privacy-filtered context selected for a task or question.",
	ToolQuery:   "Query the bounded, privacy-filtered typed knowledge graph with filters.",
	ToolCheck:   "Check bounded, privacy-filtered documents without changing them.",
	ToolCapsule: "Fetch a bounded, privacy-projected public Task Capsule without running its checks.",
}

// MCPServer builds the SDK server: tools capability only, four tools.
func (s *Server) MCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "vivary", Version: version.String()}, &mcp.ServerOptions{
		Instructions: instructions,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		Logger:       slog.New(slog.DiscardHandler),
	})
	for _, name := range ToolNames {
		tool := &mcp.Tool{Name: name, Description: descriptions[name], Annotations: annotations,
			InputSchema: rawJSON(InputSchema(name)), OutputSchema: rawJSON(OutputSchema(name))}
		srv.AddTool(tool, s.handler(name))
	}
	srv.AddReceivingMiddleware(s.middleware)
	return srv
}

var errInvalidParams = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid tool arguments"}

// invalidArgs is -32602 for arguments validateArgs refused: the message
// goes on to name the argument and the rule it broke (never the value), so
// an agent can correct its call, and data holds the same as
// {"argument": NAME or null, "detail": SENTENCE}.
func invalidArgs(err error) *jsonrpc.Error {
	var ae *argError
	if !errors.As(err, &ae) {
		return errInvalidParams
	}
	var arg any
	if ae.arg != "" {
		arg = ae.arg
	}
	data, mErr := json.Marshal(map[string]any{"argument": arg, "detail": ae.detail})
	if mErr != nil {
		return errInvalidParams
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: errInvalidParams.Message + ": " + ae.detail, Data: data}
}

// middleware answers what the SDK would get wrong: it refuses undeclared
// features, a tools/list cursor, an unknown tool and invalid arguments with
// the reference codes, before any handler runs.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "prompts/list", "prompts/get", "resources/list", "resources/read", "resources/templates/list",
			"resources/subscribe", "resources/unsubscribe", "completion/complete", "logging/setLevel":
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
		case "tools/list":
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil && p.Cursor != "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid cursor"}
			}
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				// The SDK lists by name; the contract lists find, query, check, capsule.
				byName := map[string]*mcp.Tool{}
				for _, t := range lr.Tools {
					byName[t.Name] = t
				}
				lr.Tools = lr.Tools[:0]
				for _, n := range ToolNames {
					lr.Tools = append(lr.Tools, byName[n])
				}
			}
			if err == nil {
				s.diag.Emit(Diag{Event: "discovery_served", Outcome: "known", ElapsedMS: -1, InputBytes: -1, OutputBytes: -1})
			}
			return res, err
		case "tools/call":
			p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
			if !ok || p == nil {
				return nil, errInvalidParams
			}
			in := inputBytes(p.Arguments)
			if !toolNames[p.Name] {
				s.diag.Emit(Diag{Event: "tool_refused", Outcome: "refused", Reason: "invalid_tool", ElapsedMS: 0, InputBytes: in, OutputBytes: -1})
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown tool: call one of " + strings.Join(ToolNames, ", ")}
			}
			a, err := validateArgs(p.Name, p.Arguments)
			if err != nil {
				s.diag.Emit(Diag{Event: "tool_refused", Tool: p.Name, Outcome: "refused", Reason: "invalid_arguments", ElapsedMS: 0, InputBytes: in, OutputBytes: -1})
				return nil, invalidArgs(err)
			}
			ctx = context.WithValue(ctx, validatedKey{}, &validated{args: a, inputBytes: in, started: time.Now()})
		}
		return next(ctx, method, req)
	}
}

func inputBytes(raw json.RawMessage) int64 {
	var v any
	if len(raw) == 0 {
		v = map[string]any{}
	} else if json.Unmarshal(raw, &v) != nil {
		return 0
	}
	b, err := canon.Compact(v)
	if err != nil {
		return 0
	}
	return int64(len(b))
}

// outcome of one producer run.
type outcome struct {
	envelope *Envelope
	timedOut bool
}

// validated is what the middleware learned of a call's arguments.
type validated struct {
	args       *args
	inputBytes int64
	started    time.Time
}

type validatedKey struct{}

func (s *Server) handler(tool string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, ok := ctx.Value(validatedKey{}).(*validated)
		if !ok {
			// Called without the middleware (in-process use): validate here.
			a, err := validateArgs(tool, req.Params.Arguments)
			if err != nil {
				return nil, invalidArgs(err)
			}
			v = &validated{args: a, inputBytes: inputBytes(req.Params.Arguments), started: time.Now()}
		}
		a, in, start := v.args, v.inputBytes, v.started
		s.diag.Emit(Diag{Event: "tool_started", Tool: tool, ElapsedMS: -1, InputBytes: in, OutputBytes: -1})
		b, ok := s.bindings[a.Workspace]
		var env *Envelope
		var out outcome
		switch {
		case !ok:
			env = failure(tool, a.Workspace, reason.UnknownWorkspace)
		case b.Reader.Workspace().Check() != nil:
			env = failure(tool, a.Workspace, reason.WorkspaceUnavailable)
		default:
			var cancelled bool
			m := &snapshot.Meter{}
			var ss *mcp.ServerSession
			var token any
			if req != nil && req.Params != nil {
				ss, token = req.Session, req.Params.GetProgressToken()
			}
			stop := reportProgress(ctx, ss, token, m)
			out, cancelled = s.run(ctx, tool, b, a, m)
			stop()
			if cancelled {
				s.diag.Emit(Diag{Event: "tool_cancelled", Tool: tool, Outcome: "cancelled", Reason: "producer_unavailable",
					ElapsedMS: elapsedMS(start), InputBytes: in, OutputBytes: -1})
				return nil, ctx.Err()
			}
			env = out.envelope
		}
		res, final, err := toolResult(env)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
		}
		outBytes := int64(0)
		if t, err := final.text(); err == nil {
			outBytes = int64(len(t))
		}
		d := Diag{Event: "tool_completed", Tool: tool, Outcome: "known", ElapsedMS: elapsedMS(start), InputBytes: in, OutputBytes: outBytes}
		if final.Status != "known" {
			d.Event, d.Outcome, d.Reason = "tool_refused", final.Status, *final.Reason
			if final.firewall {
				d.Reason = "result_firewall"
			}
			if out.timedOut && final == env {
				d.Event = "tool_timed_out"
			}
		}
		s.diag.Emit(d)
		return res, nil
	}
}

// run takes the single slot and runs the producer in its own goroutine.
// The slot is released only when that goroutine really returns, so a
// producer that ignores cancellation keeps later calls at server_busy.
// m counts the documents the producer goes through, for progress.
func (s *Server) run(ctx context.Context, tool string, b *Binding, a *args, m *snapshot.Meter) (outcome, bool) {
	s.slotMu.Lock()
	if s.busy {
		s.slotMu.Unlock()
		return outcome{envelope: failure(tool, a.Workspace, reason.ServerBusy)}, false
	}
	s.busy = true
	s.slotMu.Unlock()
	if !s.stopWarm() {
		s.slotMu.Lock()
		s.busy = false
		s.slotMu.Unlock()
		return outcome{envelope: failure(tool, a.Workspace, reason.ServerBusy)}, false
	}

	pctx, cancel := context.WithCancel(snapshot.WithMeter(context.Background(), m))
	done := make(chan *Envelope, 1)
	go func() {
		env := s.guarded(pctx, tool, b, a)
		pending := s.pendingWarm()
		// The slot is free before the answer is handed over: a client that
		// sends its next call the moment it reads this one's answer must
		// never find the slot still held. The background work starts again
		// before the slot is free, so that call finds it to stop.
		s.slotMu.Lock()
		s.busy = false
		s.rewarm(pending)
		s.slotMu.Unlock()
		done <- env
	}()
	timer := time.NewTimer(s.opts.Timeout)
	defer timer.Stop()
	select {
	case env := <-done:
		cancel()
		return outcome{envelope: env}, false
	case <-timer.C:
		cancel()
		s.wait(done)
		env := failure(tool, a.Workspace, reason.ProducerUnavailable)
		env.Message = timeoutAdvice
		return outcome{envelope: env, timedOut: true}, false
	case <-ctx.Done():
		cancel()
		s.wait(done)
		return outcome{}, true
	}
}

// guarded is produce with a panic turned into producer_unavailable.
func (s *Server) guarded(ctx context.Context, tool string, b *Binding, a *args) (env *Envelope) {
	defer func() {
		if recover() != nil {
			env = failure(tool, a.Workspace, reason.ProducerUnavailable)
		}
	}()
	return s.produce(ctx, tool, b, a)
}

// wait gives a cancelled producer the grace period; its result is dropped.
func (s *Server) wait(done <-chan *Envelope) {
	t := time.NewTimer(s.opts.Grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// produce runs the producer, then re-checks the anchor and the firewall.
func (s *Server) produce(ctx context.Context, tool string, b *Binding, a *args) *Envelope {
	v, err := s.opts.Producer(ctx, tool, b.Reader, a)
	if err != nil {
		return failureOf(tool, a.Workspace, err, b.Reader.Workspace().Root())
	}
	if ctx.Err() != nil {
		return failure(tool, a.Workspace, reason.ProducerUnavailable)
	}
	ws := b.Reader.Workspace()
	if ws.Check() != nil {
		return failure(tool, a.Workspace, reason.WorkspaceUnavailable)
	}
	raw, complete, err := firewall(v, ws.Root())
	if err != nil {
		// The core screens every document the way the firewall screens a
		// result, so this is a defect, not a bad note: it is named in the
		// diagnostics.
		env := failure(tool, a.Workspace, reason.ProducerUnavailable)
		env.firewall = true
		return env
	}
	return success(tool, a.Workspace, raw, complete)
}

// codeOf maps a producer error to an envelope reason; an argument error the
// adapter's own validation let through is the producer's problem.
func codeOf(err error) reason.Code {
	c := reason.Of(err)
	if errors.Is(err, context.Canceled) || c == reason.InvalidArguments || !failures[c] {
		return reason.ProducerUnavailable
	}
	return c
}

// runProducer calls the core producer for a tool.
func runProducer(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
	switch tool {
	case ToolFind:
		return r.Find(ctx, produce.FindArgs{Question: a.Text, Limit: a.Limit, Budget: a.Budget})
	case ToolQuery:
		return r.Query(ctx, produce.QueryArgs{Text: a.Text, Limit: a.Limit, SnippetChars: a.SnippetChars, Explain: a.Explain,
			Filters: produce.Filters{Type: a.Types, Path: a.Paths, Edge: a.Edges}})
	case ToolCheck:
		return r.Check(ctx, produce.CheckArgs{Paths: a.CheckPaths, Strict: a.Strict})
	case ToolCapsule:
		return capsule.Compile(ctx, r, capsule.Args{Question: a.Text, MaxClaims: a.MaxClaims})
	}
	return nil, reason.New(reason.ProducerUnavailable, "unknown tool")
}

// Bind binds one workspace for the server under its alias. Unlike
// workspace.Bind, which refuses a path that is itself a link, it resolves
// every link first, so a --workspace that is a link to a directory binds
// its target: the operator chose that path at startup, where no tool call
// can reach, and the binding is anchored to the resolved directory.
func Bind(alias, root string) (*Binding, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	ws, err := workspace.Bind(real)
	if err != nil {
		return nil, err
	}
	return &Binding{Alias: alias, Reader: produce.NewServingReader(ws)}, nil
}
