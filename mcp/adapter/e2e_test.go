package adapter_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
)

// bin is vivary-mcp built with the test hooks, create is create-vivary:
// each is built once per test run, both at the same time.
var bin, create string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vivary-mcp-test-")
	if err != nil {
		panic(err)
	}
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	bin, create = filepath.Join(dir, "vivary-mcp"+exe), filepath.Join(dir, "create-vivary"+exe)
	// Where no Go toolchain runs the tests (Windows builds under Wine),
	// VIVARY_TEST_PREBUILT names a folder holding both, built as below.
	if pre := os.Getenv("VIVARY_TEST_PREBUILT"); pre != "" {
		bin, create = filepath.Join(pre, "vivary-mcp"+exe), filepath.Join(pre, "create-vivary"+exe)
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	builds := []*exec.Cmd{
		// Test builds carry the hooks that shorten timeouts; release builds do not.
		exec.Command("go", "build", "-tags", "vivarytest", "-o", bin, "../cmd/vivary-mcp"),
		exec.Command("go", "build", "-o", create, "../../cmd/create-vivary"),
	}
	for _, b := range builds {
		b.Stderr = os.Stderr
		if err := b.Start(); err != nil {
			panic(err)
		}
	}
	for _, b := range builds {
		if err := b.Wait(); err != nil {
			panic(fmt.Sprintf("%v: %v", b.Args, err))
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const marker = "ZEBRAMARKER"

// fixtureWS is a thin workspace with typed records and planted secrets.
func fixtureWS(t *testing.T) string {
	return testws.Thin(t, map[string]string{
		".vivary/records/changes/adapter.md": "---\nproject: p\nstatus: active\nslice: read-only adapter\nrelated_modules: [policy]\n---\n# Adapter change\n\nThe adapter serves four tools.\n",
		".vivary/records/modules/policy.md":  "---\nproject: p\nstatus: active\nmodule_area: privacy\n---\n# Policy module\n\nAdmits paths before reads.\n",
		".vivary/private/secret.md":          "# Private\n\n" + marker + "\n",
		".vivary/runtime/run.md":             "# Run\n\n" + marker + "\n",
		"notes/.env.md":                      marker + "\n",
		// An all-capitals word alone reads as a variable's name (PASSWORD=
		// USER), so the planted password mixes cases and digits as a real
		// one does.
		"notes/leak.md": "# Leak\n\npassword = x7" + marker + "9q\n",
	})
}

type server struct {
	t      *testing.T
	cs     *mcp.ClientSession
	stderr *lockedWriter
	cmd    *exec.Cmd
}

type opts struct {
	env     []string
	args    []string
	version string // "" is 2026-07-28 through server/discover
	// prepare, when set, changes the command before it starts.
	prepare func(cmd *exec.Cmd)
	// progress, when set, sees every progress notification.
	progress func(*mcp.ProgressNotificationParams)
}

func start(t *testing.T, o opts, roots ...string) *server {
	t.Helper()
	args := append([]string{}, o.args...)
	for i, r := range roots {
		args = append(args, "--workspace", fmt.Sprintf("ws%d", i), r)
	}
	if len(o.args) == 0 {
		args = append(args, "--observability", "json")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), o.env...)
	if o.prepare != nil {
		o.prepare(cmd)
	}
	stderr := &lockedWriter{w: &bytes.Buffer{}}
	cmd.Stderr = stderr
	copts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	if o.progress != nil {
		copts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { o.progress(r.Params) }
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "go-e2e", Version: "0"}, copts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 3 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: o.version})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	s := &server{t: t, cs: cs, stderr: stderr, cmd: cmd}
	t.Cleanup(func() { cs.Close() })
	return s
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

type envelope struct {
	Schema    string          `json:"schema"`
	Tool      string          `json:"tool"`
	Status    string          `json:"status"`
	Complete  bool            `json:"complete"`
	Workspace string          `json:"workspace"`
	Reason    *string         `json:"reason"`
	Result    json.RawMessage `json:"result"`
	Omissions []any           `json:"omissions"`
	Message   string          `json:"message"`
}

func (s *server) call(name string, args map[string]any) (*mcp.CallToolResult, *envelope, error) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, nil, err
	}
	var e envelope
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &e); err != nil {
		s.t.Fatalf("structuredContent: %v", err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var fromText envelope
	if err := json.Unmarshal([]byte(text), &fromText); err != nil || fromText.Status != e.Status {
		s.t.Fatalf("text content is not the envelope: %v", err)
	}
	if strings.Contains(text, marker) {
		s.t.Fatalf("planted secret content reached the wire: %s", text)
	}
	if res.IsError != (e.Status != "known") {
		s.t.Fatalf("isError %v for status %s", res.IsError, e.Status)
	}
	return res, &e, nil
}

func (s *server) reason(name string, args map[string]any) string {
	s.t.Helper()
	_, e, err := s.call(name, args)
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	if e.Reason == nil {
		return "known"
	}
	return *e.Reason
}

// versionLine is what --version prints: a release, or a development build
// named by its commit.
var versionLine = regexp.MustCompile(`^vivary-mcp (v\d+\.\d+\.\d+\S*|\(devel\)( [0-9a-f]{12}(\+dirty)?)?)\n$`)

func TestDiscoveryAndListing(t *testing.T) {
	t.Parallel()
	// serverInfo.version is the string --version prints: the build's own.
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	built, ok := strings.CutPrefix(strings.TrimSuffix(string(out), "\n"), "vivary-mcp ")
	if !ok || built == "" || strings.ContainsAny(built, "\n") {
		t.Fatalf("--version printed %q", out)
	}
	for _, version := range []string{"", "2025-11-25", "2025-06-18", "2024-11-05"} {
		t.Run("version "+version, func(t *testing.T) {
			s := start(t, opts{version: version}, fixtureWS(t))
			init := s.cs.InitializeResult()
			if init.ServerInfo.Name != "vivary" || init.ServerInfo.Version != built {
				t.Fatalf("server info %+v", init.ServerInfo)
			}
			want := version
			if want == "" {
				want = "2026-07-28"
			}
			if init.ProtocolVersion != want {
				t.Fatalf("negotiated %s, want %s", init.ProtocolVersion, want)
			}
			// The server must not announce logging, deprecated or not.
			//lint:ignore SA1019 asserting the deprecated capability is absent
			if init.Capabilities.Tools == nil || init.Capabilities.Logging != nil || init.Capabilities.Prompts != nil || init.Capabilities.Resources != nil {
				t.Fatalf("capabilities %+v", init.Capabilities)
			}
			list, err := s.cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
				a := tool.Annotations
				if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
					t.Errorf("%s annotations %+v", tool.Name, a)
				}
				in, _ := json.Marshal(tool.InputSchema)
				out, _ := json.Marshal(tool.OutputSchema)
				var is, os map[string]any
				json.Unmarshal(in, &is)
				json.Unmarshal(out, &os)
				if is["additionalProperties"] != false || is["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
					t.Errorf("%s input schema is not closed 2020-12", tool.Name)
				}
				defs := os["$defs"].(map[string]any)["producer"].(map[string]any)
				if os["additionalProperties"] != false || defs["additionalProperties"] != false {
					t.Errorf("%s output schema is not closed", tool.Name)
				}
				if strings.Contains(string(out), "http://") || strings.Contains(string(out), `"$ref":"https`) {
					t.Errorf("%s output schema refers out", tool.Name)
				}
			}
			if strings.Join(names, ",") != "vivary_find,vivary_query,vivary_check,vivary_capsule" {
				t.Fatalf("tools %v", names)
			}
		})
	}
}

// resolved output schemas, to validate structuredContent.
func outputSchemas(t *testing.T, s *server) map[string]*jsonschema.Resolved {
	list, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		raw, _ := json.Marshal(tool.OutputSchema)
		var sch jsonschema.Schema
		if err := json.Unmarshal(raw, &sch); err != nil {
			t.Fatal(err)
		}
		r, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s output schema does not resolve: %v", tool.Name, err)
		}
		out[tool.Name] = r
	}
	return out
}

func TestAllFourTools(t *testing.T) {
	t.Parallel()
	root := fixtureWS(t)
	before := testws.Hash(t, root)
	s := start(t, opts{}, root)
	schemas := outputSchemas(t, s)
	calls := map[string]map[string]any{
		"vivary_find":    {"workspace": "ws0", "question": "adapter tools", "limit": 3, "budget": 500},
		"vivary_query":   {"workspace": "ws0", "text": "adapter", "type_filters": []string{"change"}, "explain": true, "snippet_chars": 40},
		"vivary_check":   {"workspace": "ws0", "paths": []string{".vivary/records"}, "strict": true},
		"vivary_capsule": {"workspace": "ws0", "question": "what changed in the adapter", "max_claims": 5},
	}
	for name, args := range calls {
		res, e, err := s.call(name, args)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e.Status != "known" || e.Schema != "vivary.mcp-tool-result/v0" || e.Workspace != "ws0" || e.Tool != name {
			t.Fatalf("%s: envelope %+v", name, e)
		}
		var v any
		raw, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(raw, &v)
		if err := schemas[name].Validate(v); err != nil {
			t.Errorf("%s: structuredContent fails its output schema: %v", name, err)
		}
		if strings.Contains(string(raw), root) {
			t.Errorf("%s: result names the root", name)
		}
	}
	// Asked for by every word it holds, the planted password is only ever
	// counted: call fails the test if the marker reaches the wire.
	for _, text := range []string{"leak", "password", "notes leak password", "x7"} {
		_, e, err := s.call("vivary_query", map[string]any{"workspace": "ws0", "text": text})
		if err != nil && !strings.Contains(err.Error(), "path_refused") {
			t.Fatalf("query %q: %v", text, err)
		}
		if err == nil && !strings.Contains(string(e.Result), `"sensitive_content"`) {
			t.Fatalf("query %q: the planted password is not counted as sensitive content: %s", text, e.Result)
		}
	}
	if testws.Hash(t, root) != before {
		t.Fatal("the read phase changed the workspace")
	}
}

func TestReasonCodes(t *testing.T) {
	t.Parallel()
	good := fixtureWS(t)
	badPolicy := fixtureWS(t)
	testws.Write(t, badPolicy, ".gitignore", "*.md\n")
	tooBig := fixtureWS(t)
	testws.Write(t, tooBig, "tropo.toml", "#"+strings.Repeat("x", 1<<20)+"\n")
	bigNote := fixtureWS(t)
	testws.Write(t, bigNote, "big.md", strings.Repeat("x", 1<<20+1))
	s := start(t, opts{}, good, badPolicy, tooBig, bigNote)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"vivary_query", map[string]any{"workspace": "nope", "text": "x"}, "unknown_workspace"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "a\nb"}, "path_refused"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "see /etc/passwd"}, "path_refused"},
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []string{".env"}}, "path_refused"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "path_filters": []string{".vivary/private/*"}}, "path_refused"},
		{"vivary_query", map[string]any{"workspace": "ws1", "text": "x"}, "privacy_policy_unavailable"},
		{"vivary_check", map[string]any{"workspace": "ws2"}, "work_limit_exceeded"},
		{"vivary_check", map[string]any{"workspace": "ws3"}, "known"},
		{"vivary_find", map[string]any{"workspace": "ws0", "question": "adapter"}, "known"},
	} {
		if got := s.reason(c.tool, c.args); got != c.want {
			t.Errorf("%s %v: %s, want %s", c.tool, c.args, got, c.want)
		}
	}
	// One Markdown file over 1 MiB costs that one document, not the call.
	if _, e, _ := s.call("vivary_check", map[string]any{"workspace": "ws3"}); e.Complete || !strings.Contains(string(e.Result), `{"count":1,"kind":"document","reason":"too_large"}`) {
		t.Errorf("a too-large note: complete %v, result %s", e.Complete, e.Result)
	}
	_, e, _ := s.call("vivary_query", map[string]any{"workspace": "nope", "text": "x"})
	if e.Status != "refused" || e.Result == nil || string(e.Result) != "null" || len(e.Omissions) != 1 {
		t.Errorf("failure envelope %+v", e)
	}
	_, e, _ = s.call("vivary_query", map[string]any{"workspace": "ws1", "text": "x"})
	if e.Status != "unknown" {
		t.Errorf("privacy_policy_unavailable status %s", e.Status)
	}
}

func TestInvalidArgumentsNeverReachTheProducer(t *testing.T) {
	t.Parallel()
	// The producer would stall for a minute; an invalid call must not wait for it.
	s := start(t, opts{env: []string{"VIVARY_MCP_TEST_PRODUCER=stall:60s"}}, fixtureWS(t))
	long := strings.Repeat("é", 4097)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"vivary_query", map[string]any{"workspace": "ws0"}},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "bogus": 1}},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "   "}},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": long}},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "limit": 21}},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "limit": 0}},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "limit": 5.5}},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "limit": true}},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "snippet_chars": 1001}},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "type_filters": []string{"a", "a"}}},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "type_filters": make([]string, 17)}},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "explain": "yes"}},
		{"vivary_query", map[string]any{"workspace": "bad alias!", "text": "x"}},
		{"vivary_query", map[string]any{"workspace": strings.Repeat("a", 65), "text": "x"}},
		{"vivary_find", map[string]any{"workspace": "ws0", "question": "x", "budget": 63}},
		{"vivary_find", map[string]any{"workspace": "ws0", "question": "x", "budget": 4001}},
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []string{"../x"}}},
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []string{"/etc"}}},
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []string{`a\b`}}},
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []string{"a/"}}},
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []string{"C:x"}}},
		{"vivary_check", map[string]any{"workspace": "ws0", "root": "/"}},
		{"vivary_capsule", map[string]any{"workspace": "ws0", "question": "x", "max_claims": 25}},
		{"vivary_capsule", map[string]any{"workspace": "ws0", "question": "x", "max_claims": -1}},
		{"vivary_nope", map[string]any{"workspace": "ws0"}},
	} {
		// A call that reached the stalled producer would outlast s.call's
		// deadline and fail here.
		_, _, err := s.call(c.tool, c.args)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %v: %v, want -32602", c.tool, c.args, err)
		}
	}
	if strings.Contains(s.stderr.String(), `"event":"tool_started"`) {
		t.Error("an invalid call started the producer")
	}
	// Boundaries that are valid.
	s2 := start(t, opts{}, fixtureWS(t))
	for _, args := range []map[string]any{
		{"workspace": "ws0", "text": strings.Repeat("é", 4096), "limit": 20, "snippet_chars": 1000},
		{"workspace": "ws0", "text": "x", "limit": 1, "snippet_chars": 0},
	} {
		if _, _, err := s2.call("vivary_query", args); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
	if _, _, err := s2.call("vivary_check", map[string]any{"workspace": "ws0", "strict": nil}); err != nil {
		t.Errorf("strict null: %v", err)
	}
}

func TestMetaCarriesNoAuthority(t *testing.T) {
	t.Parallel()
	s := start(t, opts{}, fixtureWS(t), fixtureWS(t))
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{
		Meta: mcp.Meta{"vivary.test.authorization": "ws1"}, Name: "vivary_check", Arguments: map[string]any{"workspace": "nope"}})
	if err != nil || !res.IsError {
		t.Fatalf("_meta widened authority: %v %+v", err, res)
	}
}

// The test hooks reach the binary: a producer deaf to its timeout is
// answered for, and holds the slot. The durations themselves are tested in
// fake time (slot_test.go).
func TestTimeoutAndQuarantine(t *testing.T) {
	t.Parallel()
	// The background reading is off: with a 50 ms grace, a loaded machine
	// (or Wine) may not stop it in time, and the first call would find the
	// slot taken instead of timing out; this test is about the stalled call.
	s := start(t, opts{env: []string{"VIVARY_MCP_TEST_WARM=off", "VIVARY_MCP_TEST_TIMEOUT=50ms", "VIVARY_MCP_TEST_GRACE=50ms", "VIVARY_MCP_TEST_PRODUCER=stall:60s"}}, fixtureWS(t))
	if got := s.reason("vivary_check", map[string]any{"workspace": "ws0"}); got != "producer_unavailable" {
		t.Fatalf("first call %s", got)
	}
	if !eventually(func() bool { return strings.Contains(s.stderr.String(), `"event":"tool_timed_out"`) }) {
		t.Errorf("no tool_timed_out diagnostic:\n%s", s.stderr)
	}
	if got := s.reason("vivary_check", map[string]any{"workspace": "ws0"}); got != "server_busy" {
		t.Fatalf("second call during quarantine: %s", got)
	}
	// unknown_workspace is reported even while busy.
	if got := s.reason("vivary_check", map[string]any{"workspace": "nope"}); got != "unknown_workspace" {
		t.Fatalf("unknown alias while busy: %s", got)
	}
}

// gate drives the test producer VIVARY_MCP_TEST_PRODUCER=gate:PATH: a call
// that reached it holds the slot until the gate opens or it is cancelled.
type gate string

func newGate(t *testing.T) gate { return gate(filepath.Join(t.TempDir(), "gate")) }

func (g gate) env() string { return "VIVARY_MCP_TEST_PRODUCER=gate:" + string(g) }

// entered waits until a call is inside the producer, and re-arms the mark.
func (g gate) entered(t *testing.T) {
	t.Helper()
	if !eventuallyWithin(20*time.Second, func() bool { return os.Remove(string(g)+".running") == nil }) {
		t.Fatal("no call reached the producer")
	}
}

func (g gate) open(t *testing.T) {
	if err := os.WriteFile(string(g), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentCallIsBusy(t *testing.T) {
	t.Parallel()
	g := newGate(t)
	s := start(t, opts{env: []string{g.env()}}, fixtureWS(t))
	first := make(chan string, 1)
	go func() { first <- s.reason("vivary_check", map[string]any{"workspace": "ws0"}) }()
	g.entered(t)
	if got := s.reason("vivary_check", map[string]any{"workspace": "ws0"}); got != "server_busy" {
		t.Fatalf("second call: %s", got)
	}
	g.open(t)
	if got := <-first; got != "known" {
		t.Fatalf("first call: %s", got)
	}
}

// A cancelled call is not answered, and its cooperative producer frees the
// slot: a call on a bound alias, refused while the slot was held, then
// reaches the producer.
func TestCancellation(t *testing.T) {
	t.Parallel()
	g := newGate(t)
	s := start(t, opts{env: []string{g.env()}}, fixtureWS(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "vivary_check", Arguments: map[string]any{"workspace": "ws0"}})
		done <- err
	}()
	g.entered(t)
	if got := s.reason("vivary_check", map[string]any{"workspace": "ws0"}); got != "server_busy" {
		t.Fatalf("probe while the call runs: %s", got)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call answered")
	}
	if !eventually(func() bool { return strings.Contains(s.stderr.String(), `"event":"tool_cancelled"`) }) {
		t.Fatalf("no tool_cancelled diagnostic:\n%s", s.stderr)
	}
	probe := make(chan string, 1)
	go func() { probe <- s.reason("vivary_check", map[string]any{"workspace": "ws0"}) }()
	g.entered(t)
	g.open(t)
	if got := <-probe; got != "known" {
		t.Fatalf("probe after the cancel: %s", got)
	}
}

func TestResponseLimitAndFirewall(t *testing.T) {
	t.Parallel()
	s := start(t, opts{env: []string{"VIVARY_MCP_TEST_PRODUCER=big"}}, fixtureWS(t))
	res, e, err := s.call("vivary_check", map[string]any{"workspace": "ws0"})
	if err != nil || e.Reason == nil || *e.Reason != "response_limit_exceeded" || string(e.Result) != "null" {
		t.Fatalf("oversize result: %v %+v", err, e)
	}
	if n := len(res.Content[0].(*mcp.TextContent).Text); n > 1024 {
		t.Fatalf("replacement text is %d bytes", n)
	}
	for _, key := range []string{"command", "cwd", "evidence", "raw_path", "scope", "subject_path"} {
		s := start(t, opts{env: []string{"VIVARY_MCP_TEST_PRODUCER=leak:" + key}}, fixtureWS(t))
		if got := s.reason("vivary_check", map[string]any{"workspace": "ws0"}); got != "producer_unavailable" {
			t.Errorf("forbidden key %s: %s", key, got)
		}
		if !eventually(func() bool { return strings.Contains(s.stderr.String(), `"reason":"result_firewall"`) }) {
			t.Errorf("forbidden key %s: the firewall's refusal is not named in the diagnostics:\n%s", key, s.stderr)
		}
	}
}

func TestRootReplacedMidSession(t *testing.T) {
	t.Parallel()
	root := fixtureWS(t)
	s := start(t, opts{}, root)
	if got := s.reason("vivary_check", map[string]any{"workspace": "ws0"}); got != "known" {
		t.Fatal(got)
	}
	testws.Write(t, root, "notes/new.md", "# New\n")
	if got := s.reason("vivary_check", map[string]any{"workspace": "ws0"}); got != "known" {
		t.Fatalf("an ordinary write broke the anchor: %s", got)
	}
	os.Rename(root, root+".old")
	os.MkdirAll(root, 0o755)
	for _, f := range []string{".gitignore"} {
		b, _ := os.ReadFile(filepath.Join(root+".old", f))
		os.WriteFile(filepath.Join(root, f), b, 0o644)
	}
	if got := s.reason("vivary_check", map[string]any{"workspace": "ws0"}); got != "workspace_unavailable" {
		t.Fatalf("replaced root: %s", got)
	}
}

// rawSession drives the binary over plain pipes, to send exact bytes.
type rawSession struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
}

func startRaw(t *testing.T, env []string, args ...string) *rawSession {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return &rawSession{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<21), stderr: stderr}
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}`

func (r *rawSession) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(r.in, line); err != nil {
		t.Fatal(err)
	}
}

func (r *rawSession) recv(t *testing.T) map[string]any {
	t.Helper()
	line, err := r.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read: %v (stderr %s)", err, r.stderr)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("stdout holds a non-JSON line: %q", line)
	}
	return m
}

func errCode(m map[string]any) float64 {
	if e, ok := m["error"].(map[string]any); ok {
		return e["code"].(float64)
	}
	return 0
}

// pad makes a tools/call frame of exactly n bytes, the newline included.
func pad(id, n int) string {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s,"name":"vivary_check","arguments":{"workspace":"ws0"}}}`, id, meta)
	return head + strings.Repeat(" ", n-len(head)-1) + "\n"
}

func TestFrames(t *testing.T) {
	t.Parallel()
	root := fixtureWS(t)
	r := startRaw(t, nil, "--workspace", "ws0", root, "--observability", "off")
	r.send(t, pad(1, 65536))
	if m := r.recv(t); m["result"] == nil {
		t.Fatalf("a 65,536-byte frame was refused: %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+meta+`,"name":"vivary_check"}}`+"\n")
	if m := r.recv(t); errCode(m) != -32602 {
		t.Fatalf("missing arguments: %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"vivary_check","arguments":{"workspace":"ws0"}}}`+"\n")
	if m := r.recv(t); errCode(m) != -32602 {
		t.Fatalf("_meta without clientCapabilities: %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","id":4,"method":"prompts/list","params":{`+meta+`}}`+"\n")
	if m := r.recv(t); errCode(m) != -32601 {
		t.Fatalf("prompts/list: %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{`+meta+`,"cursor":"abc"}}`+"\n")
	if m := r.recv(t); errCode(m) != -32602 {
		t.Fatalf("tools/list cursor: %v", m)
	}
	r.send(t, "{not json\n")
	if m := r.recv(t); errCode(m) != -32700 {
		t.Fatalf("bad JSON: %v", m)
	}
	r.send(t, pad(6, 65537))
	if m := r.recv(t); errCode(m) != -32600 || m["id"] != nil {
		t.Fatalf("oversize frame: %v", m)
	}
	// The session has ended: nothing after the refused frame is read (the
	// write may fail once the server has exited).
	io.WriteString(r.in, pad(7, 400))
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(30 * time.Second): // a deadline only a server that goes on reaches, however busy the machine
		t.Fatal("the server kept reading after an oversize frame")
	}
	if rest, _ := io.ReadAll(r.out); len(rest) != 0 {
		t.Fatalf("answered after the refused frame: %s", rest)
	}
	if r.stderr.Len() != 0 {
		t.Fatalf("stderr not empty with --observability off: %s", r.stderr)
	}
}

// A refused frame ends the session, and the JSON diagnostics say so with a
// frame_refused event that names why and carries nothing of the frame.
func TestBadFramesEndTheSession(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, frame, reason string }{
		{"not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\xff\"}\n", "frame_not_utf8"},
		{"unterminated", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, "frame_unterminated"},
		{"over-long", pad(1, 65537), "frame_too_long"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := startRaw(t, nil, "--workspace", "ws0", fixtureWS(t), "--observability", "json")
			r.send(t, c.frame)
			r.in.Close()
			if m := r.recv(t); errCode(m) != -32600 {
				t.Fatalf("%v", m)
			}
			if err := r.cmd.Wait(); err != nil {
				t.Fatalf("exit %v", err)
			}
			want := `{"event":"server_started","outcome":"known","schema":"vivary.mcp-observability/v0","sequence":1}` + "\n" +
				`{"event":"frame_refused","outcome":"refused","reason":"` + c.reason + `","schema":"vivary.mcp-observability/v0","sequence":2}` + "\n" +
				`{"event":"server_stopped","outcome":"known","schema":"vivary.mcp-observability/v0","sequence":3}` + "\n"
			if r.stderr.String() != want {
				t.Fatalf("diagnostics:\n%s\nwant:\n%s", r.stderr, want)
			}
		})
	}
	// errors mode writes the refusal too.
	r := startRaw(t, nil, "--workspace", "ws0", fixtureWS(t))
	r.send(t, pad(1, 65537))
	r.in.Close()
	r.recv(t)
	r.cmd.Wait()
	if got := r.stderr.String(); got != "vivary-mcp event=frame_refused sequence=1 outcome=refused reason=frame_too_long\n" {
		t.Fatalf("errors mode: %q", got)
	}
}

func TestEOFAnswersCallsInFlight(t *testing.T) {
	t.Parallel()
	r := startRaw(t, nil, "--workspace", "ws0", fixtureWS(t), "--observability", "off")
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"vivary_check","arguments":{"workspace":"ws0"}}}`+"\n")
	r.in.Close()
	if m := r.recv(t); m["result"] == nil {
		t.Fatalf("the call in flight lost its answer: %v", m)
	}
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("exit %v", err)
	}
}

func TestStdoutCarriesOnlyProtocol(t *testing.T) {
	t.Parallel()
	r := startRaw(t, []string{"VIVARY_MCP_TEST_PRODUCER=write"}, "--workspace", "ws0", fixtureWS(t), "--observability", "off")
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"vivary_check","arguments":{"workspace":"ws0"}}}`+"\n")
	m := r.recv(t)
	if m["result"] == nil {
		t.Fatalf("%v", m)
	}
	// No socket is open at any time.
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", r.cmd.Process.Pid))
	for _, fd := range fds {
		target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", r.cmd.Process.Pid, fd.Name()))
		if strings.HasPrefix(target, "socket:") {
			t.Errorf("fd %s is a socket", fd.Name())
		}
	}
	r.in.Close()
	rest, _ := io.ReadAll(r.out)
	if bytes.Contains(rest, []byte("STRAY")) {
		t.Fatal("a stray write reached stdout")
	}
	r.cmd.Wait()
	if r.stderr.Len() != 0 {
		t.Fatalf("stray write went to stderr: %s", r.stderr)
	}
}

func TestStartupRefusals(t *testing.T) {
	t.Parallel()
	root := fixtureWS(t)
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(root, link)
	many := []string{}
	for i := 0; i < 17; i++ {
		many = append(many, "--workspace", fmt.Sprintf("w%d", i), fixtureWS(t))
	}
	// Every refusal says which argument was wrong and what to pass, and
	// repeats neither the path nor the alias.
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no workspace", []string{}, "required: --workspace; pass --workspace ALIAS PATH"},
		{"one value", []string{"--workspace", "a"}, "expected 2 arguments; pass --workspace ALIAS PATH"},
		{"bad choice", []string{"--workspace", "a", root, "--observability", "loud"}, "invalid choice (choose from 'off', 'errors', 'json')"},
		{"unknown flag", []string{"--workspace", "a", root, "--root", "/"}, "unrecognized arguments: --root; vivary-mcp takes --workspace ALIAS PATH"},
		{"stray path", []string{"--workspace", "a", root, root}, "unrecognized arguments: argument 4; vivary-mcp takes"},
		{"bad alias", []string{"--workspace", "-a", root}, "the alias of --workspace 1 is not valid; an alias is 1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit"},
		{"alias newline", []string{"--workspace", "a\n", root}, "the alias of --workspace 1 is not valid"},
		{"alias too long", []string{"--workspace", strings.Repeat("a", 65), root}, "the alias of --workspace 1 is not valid"},
		{"missing root", []string{"--workspace", "a", root + "/nope"}, "the path of --workspace 1 is refused: workspace directory does not exist; check the path"},
		{"file root", []string{"--workspace", "a", filepath.Join(root, "STATE.md")}, "the path of --workspace 1 is refused: workspace path is not a directory"},
		{"duplicate alias", []string{"--workspace", "a", root, "--workspace", "a", fixtureWS(t)}, "--workspace 2 repeats the alias of --workspace 1"},
		{"same dir twice", []string{"--workspace", "a", root, "--workspace", "b", link}, "--workspace 2 names the same directory as --workspace 1"},
		{"seventeen", many, "17 workspaces given; bind one to 16"},
	} {
		cmd := exec.Command(bin, c.args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%s: %v", c.name, err)
		}
		if !strings.HasPrefix(stderr.String(), "usage: vivary-mcp") || strings.Contains(stderr.String(), root) || stdout.Len() != 0 {
			t.Errorf("%s: stderr %q stdout %q", c.name, stderr.String(), stdout.String())
		}
		if !strings.Contains(stderr.String(), "vivary-mcp: error: ") || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%s: stderr %q, want it to say %q", c.name, stderr.String(), c.want)
		}
	}
	// A link to a directory binds its target.
	s := start(t, opts{}, link)
	if got := s.reason("vivary_check", map[string]any{"workspace": "ws0"}); got != "known" {
		t.Fatalf("bound through a link: %s", got)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !versionLine.Match(out) {
		t.Fatalf("--version: %q %v", out, err)
	}
	out, err = exec.Command(bin, "--help").Output()
	if err != nil || !strings.Contains(string(out), "--workspace ALIAS PATH") {
		t.Fatalf("--help: %q %v", out, err)
	}
}

func TestDiagnosticsNeverLeak(t *testing.T) {
	t.Parallel()
	root := fixtureWS(t)
	s := start(t, opts{}, root)
	s.reason("vivary_query", map[string]any{"workspace": "ws0", "text": "secretquestion"})
	s.reason("vivary_query", map[string]any{"workspace": "nope", "text": "x"})
	s.call("vivary_query", map[string]any{"workspace": "ws0", "text": "x", "bogus": "argvalue"})
	s.cs.Close()
	eventually(func() bool { return strings.Contains(s.stderr.String(), `"event":"server_stopped"`) })
	out := s.stderr.String()
	for _, bad := range []string{root, "ws0", "nope", "secretquestion", "argvalue", ".md"} {
		if strings.Contains(out, bad) {
			t.Errorf("diagnostics hold %q:\n%s", bad, out)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["schema"] != "vivary.mcp-observability/v0" || len(line) > 4096 {
			t.Errorf("diagnostic line %q", line)
		}
	}
	for _, ev := range []string{"server_started", "tool_started", "tool_completed", "tool_refused", "server_stopped"} {
		if !strings.Contains(out, `"event":"`+ev+`"`) {
			t.Errorf("no %s event", ev)
		}
	}
}

func TestThinBlockConstantMatchesFixture(t *testing.T) {
	t.Parallel()
	b, _ := os.ReadFile(filepath.Join(fixtureWS(t), ".gitignore"))
	if string(b) != policy.GitignoreBlock {
		t.Fatal("fixture .gitignore differs from the policy block")
	}
}

// A cancelled call gets no response at all (the protocol expects none),
// and the session goes on.
func TestCancelledCallIsNotAnswered(t *testing.T) {
	t.Parallel()
	g := newGate(t)
	r := startRaw(t, []string{g.env()}, "--workspace", "ws0", fixtureWS(t), "--observability", "off")
	r.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{`+meta+`,"name":"vivary_check","arguments":{"workspace":"ws0"}}}`+"\n")
	g.entered(t)
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user",`+meta+`}}`+"\n")
	r.send(t, `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{`+meta+`}}`+"\n")
	m := r.recv(t)
	if m["id"] != float64(8) || m["result"] == nil {
		t.Fatalf("first answer after the cancel: %v", m)
	}
	r.in.Close()
	rest, _ := io.ReadAll(r.out)
	if bytes.Contains(rest, []byte(`"id":7`)) {
		t.Fatalf("the cancelled call was answered: %s", rest)
	}
}

// A bounded soak: one session, many calls of every kind, valid and not, in
// sequence; every answer is well formed and the session survives.
func TestSoakOneSession(t *testing.T) {
	t.Parallel()
	root := fixtureWS(t)
	s := start(t, opts{}, root)
	calls := []struct {
		tool string
		args map[string]any
		ok   bool
	}{
		{"vivary_find", map[string]any{"workspace": "ws0", "question": "adapter"}, true},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "policy", "explain": true}, true},
		{"vivary_check", map[string]any{"workspace": "ws0"}, true},
		{"vivary_capsule", map[string]any{"workspace": "ws0", "question": "adapter"}, true},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "bogus": true}, false},
		{"vivary_query", map[string]any{"workspace": "nope", "text": "x"}, true},
	}
	for i := 0; i < 240; i++ {
		c := calls[i%len(calls)]
		if i%40 == 0 {
			testws.Write(t, root, fmt.Sprintf("notes/soak-%d.md", i), "# Soak note\n\nadapter policy\n")
		}
		_, e, err := s.call(c.tool, c.args)
		if c.ok != (err == nil) {
			t.Fatalf("call %d %s: %v", i, c.tool, err)
		}
		if err == nil && e.Schema != "vivary.mcp-tool-result/v0" {
			t.Fatalf("call %d: %+v", i, e)
		}
	}
	_, e, err := s.call("vivary_query", map[string]any{"workspace": "ws0", "text": "soak", "limit": 20})
	if err != nil || e.Status != "known" {
		t.Fatalf("final query: %v %+v", err, e)
	}
	var q struct {
		Results []struct{ ID string } `json:"results"`
	}
	json.Unmarshal(e.Result, &q)
	if len(q.Results) != 6 {
		t.Fatalf("the session missed notes written during it: %d results", len(q.Results))
	}
}

// eventually waits up to twenty seconds for cond: stderr is copied from the
// child by another goroutine, a little after the answer arrives.
func eventually(cond func() bool) bool { return eventuallyWithin(20*time.Second, cond) }

func eventuallyWithin(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}
