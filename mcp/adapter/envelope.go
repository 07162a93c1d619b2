package adapter

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/reason"
)

// EnvelopeSchema is the schema id of every tool result.
const EnvelopeSchema = "vivary.mcp-tool-result/v0"

// Envelope is vivary.mcp-tool-result/v0.
type Envelope struct {
	Schema    string     `json:"schema"`
	Tool      string     `json:"tool"`
	Status    string     `json:"status"`
	Complete  bool       `json:"complete"`
	Workspace string     `json:"workspace"`
	Reason    *string    `json:"reason"`
	Result    any        `json:"result"` // a generic JSON tree, or nil
	Omissions []Omission `json:"omissions"`
	// Message says, on a failure only, what went wrong and what to do.
	Message string `json:"message,omitempty"`
	// firewall marks a refusal by the result firewall (never serialised).
	firewall bool
}

// Omission is one envelope omission row.
type Omission struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// failures is the closed set of envelope reasons.
var failures = map[reason.Code]bool{
	reason.UnknownWorkspace: true, reason.PathRefused: true, reason.WorkspaceUnavailable: true, reason.ServerBusy: true,
	reason.ProducerUnavailable: true, reason.PrivacyPolicyUnavailable: true, reason.WorkLimitExceeded: true,
	reason.ResponseLimitExceeded: true,
}

// advice is what a failure says when the producer gave no message of its
// own: what the reason means and what to do next, in words an agent can act
// on. It never names a path, an alias or an argument.
var advice = map[reason.Code]string{
	reason.UnknownWorkspace:         "no workspace is bound to this alias: use one of the aliases vivary-mcp was started with (--workspace ALIAS PATH)",
	reason.PathRefused:              "a text, path or filter names something the privacy policy keeps out, or is not a safe workspace-relative path: ask without it",
	reason.WorkspaceUnavailable:     "the bound workspace folder is gone, unreadable or was replaced: restart vivary-mcp with the folder's current path",
	reason.ServerBusy:               "another call is still running and only one runs at a time: send this call again once it has answered",
	reason.ProducerUnavailable:      "the call could not be answered: try again, and if it keeps failing run `vivary check --workspace DIR` on the workspace to see why",
	reason.PrivacyPolicyUnavailable: "the privacy policy could not be applied, so nothing was read: run `create-vivary doctor --workspace DIR` to see why",
	reason.WorkLimitExceeded:        "the workspace is over a work limit: exclude folders in .vivary/workspace.toml",
	reason.ResponseLimitExceeded:    "the complete result would pass 1 MiB: ask for fewer matches (limit), a smaller budget or snippet, or fewer claims",
}

// timeoutAdvice is the message of a call the timeout ended.
const timeoutAdvice = "the call ran past the 30-second limit and was stopped; what it read is kept: call again and it goes on from there (a large workspace read for the first time may take a few calls)"

func failure(tool, alias string, code reason.Code) *Envelope {
	if !failures[code] {
		code = reason.ProducerUnavailable
	}
	r := string(code)
	return &Envelope{Schema: EnvelopeSchema, Tool: tool, Status: code.Status(), Complete: false, Workspace: alias,
		Reason: &r, Result: nil, Omissions: []Omission{{Kind: "adapter_refusal", Reason: r, Count: 1}}, Message: advice[code]}
}

// failureOf is the failure for a producer error: its own message when it
// carries one that is safe to show (a fixed sentence that says what to fix,
// screened again here), else the reason's advice.
func failureOf(tool, alias string, err error, root string) *Envelope {
	e := failure(tool, alias, codeOf(err))
	var re *reason.Error
	if errors.As(err, &re) && re.Code == reason.Of(err) && string(re.Code) == *e.Reason && re.Msg != "" &&
		guard.OutputSafe(re.Msg, MaxMessageChars) && !guard.ContainsRoot(re.Msg, root) && !guard.MachinePath(re.Msg) {
		e.Message = re.Msg
	}
	return e
}

func success(tool, alias string, result any, complete bool) *Envelope {
	return &Envelope{Schema: EnvelopeSchema, Tool: tool, Status: "known", Complete: complete, Workspace: alias,
		Result: result, Omissions: []Omission{}}
}

// tree is the envelope as a generic JSON tree.
func (e *Envelope) tree() map[string]any {
	var reason any
	if e.Reason != nil {
		reason = *e.Reason
	}
	om := make([]any, len(e.Omissions))
	for i, o := range e.Omissions {
		om[i] = map[string]any{"kind": o.Kind, "reason": o.Reason, "count": json.Number(strconv.Itoa(o.Count))}
	}
	t := map[string]any{"schema": e.Schema, "tool": e.Tool, "status": e.Status, "complete": e.Complete,
		"workspace": e.Workspace, "reason": reason, "result": e.Result, "omissions": om}
	if e.Message != "" {
		t["message"] = e.Message
	}
	return t
}

// text is the compact, key-sorted JSON of the envelope with raw UTF-8.
func (e *Envelope) text() ([]byte, error) {
	return canon.EncodeTree(e.tree(), canon.Options{Order: canon.CodePoint})
}

// toolResult renders the envelope as a CallToolResult: structuredContent is
// the envelope and the one text content is its compact sorted JSON. A
// result whose complete response would pass 1 MiB is replaced whole by
// response_limit_exceeded: never truncated.
// It returns the envelope that was rendered.
func toolResult(e *Envelope) (*mcp.CallToolResult, *Envelope, error) {
	res, n, err := render(e)
	if err != nil {
		return nil, nil, err
	}
	if n+ResponseAllowance > MaxResponseBytes {
		e = failure(e.Tool, e.Workspace, reason.ResponseLimitExceeded)
		res, _, err = render(e)
	}
	return res, e, err
}

func render(e *Envelope) (*mcp.CallToolResult, int, error) {
	s, err := e.text()
	if err != nil {
		return nil, 0, err
	}
	isError := e.Status != "known"
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(s)}},
		StructuredContent: json.RawMessage(s),
		IsError:           isError,
	}, responseSize(s, isError), nil
}

// responseSize is the byte length of
// {"content":[{"type":"text","text":S}],"structuredContent":S,"isError":b}
// counted with both Python's escaping and the SDK's (which writes <, >, &
// and U+2028/9 as six bytes each); the larger one is the bound.
func responseSize(s []byte, isError bool) int {
	const fixed = len(`{"content":[{"type":"text","text":`) + len(`}],"structuredContent":`) + len(`,"isError":`) + len(`}`)
	flag := len("false")
	if isError {
		flag = len("true")
	}
	str := string(s)
	text := max(canon.StringLen(str, false), canon.StringLen(str, true))
	// structuredContent is S itself; re-encoded by the SDK, each HTML
	// character inside its strings grows by five bytes.
	structured := len(s) + 5*(strings.Count(str, "<")+strings.Count(str, ">")+strings.Count(str, "&")+strings.Count(str, "\u2028")+strings.Count(str, "\u2029"))
	return fixed + text + structured + flag
}

// forbiddenKeys may never appear in a result.
var forbiddenKeys = map[string]bool{"command": true, "cwd": true, "evidence": true, "raw_path": true, "scope": true, "subject_path": true}

var errFirewall = errors.New("result refused by the firewall")

// firewall screens a successful producer result: no forbidden key
// anywhere, and every string printable, free of the root, of credentials
// and of absolute machine paths. It returns the result as compact JSON.
func firewall(v any, root string) (any, bool, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false, err
	}
	tree, err := canon.Decode(b)
	if err != nil {
		return nil, false, err
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		return nil, false, errFirewall
	}
	stack := []any{obj}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch t := n.(type) {
		case map[string]any:
			for k, val := range t {
				if forbiddenKeys[k] {
					return nil, false, errFirewall
				}
				stack = append(stack, val)
			}
		case []any:
			stack = append(stack, t...)
		case string:
			if !guard.Printable(t) || guard.ContainsRoot(t, root) || guard.Credential(t) || guard.MachinePath(t) {
				return nil, false, errFirewall
			}
		}
	}
	complete := true
	if c, ok := obj["complete"].(bool); ok {
		complete = c
	}
	return tree, complete, nil
}
