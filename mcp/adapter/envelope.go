package adapter

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/reason"
)

// EnvelopeSchema is the schema id of every tool result.
const EnvelopeSchema = "vivary.mcp-tool-result/v0"

// Envelope is vivary.mcp-tool-result/v0.
type Envelope struct {
	Schema    string          `json:"schema"`
	Tool      string          `json:"tool"`
	Status    string          `json:"status"`
	Complete  bool            `json:"complete"`
	Workspace string          `json:"workspace"`
	Reason    *string         `json:"reason"`
	Result    json.RawMessage `json:"result"`
	Omissions []Omission      `json:"omissions"`
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

func failure(tool, alias string, code reason.Code) *Envelope {
	if !failures[code] {
		code = reason.ProducerUnavailable
	}
	r := string(code)
	return &Envelope{Schema: EnvelopeSchema, Tool: tool, Status: code.Status(), Complete: false, Workspace: alias,
		Reason: &r, Result: json.RawMessage("null"), Omissions: []Omission{{Kind: "adapter_refusal", Reason: r, Count: 1}}}
}

func success(tool, alias string, result json.RawMessage, complete bool) *Envelope {
	return &Envelope{Schema: EnvelopeSchema, Tool: tool, Status: "known", Complete: complete, Workspace: alias,
		Result: result, Omissions: []Omission{}}
}

// text is the compact, key-sorted JSON of the envelope with raw UTF-8.
func (e *Envelope) text() ([]byte, error) { return canon.Compact(e) }

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
	body := struct {
		Content           []map[string]string `json:"content"`
		StructuredContent json.RawMessage     `json:"structuredContent"`
		IsError           bool                `json:"isError"`
	}{[]map[string]string{{"type": "text", "text": string(s)}}, s, isError}
	// Count both the Python-style escaping and the SDK's (which escapes
	// <, >, & and U+2028/9 as six bytes each); the larger one is the bound.
	py, err := canon.Encode(body, canon.Options{Order: canon.Unsorted})
	if err != nil {
		return nil, 0, err
	}
	goJSON, err := json.Marshal(body)
	if err != nil {
		return nil, 0, err
	}
	n := max(len(py), len(goJSON))
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(s)}},
		StructuredContent: json.RawMessage(s),
		IsError:           isError,
	}, n, nil
}

// forbiddenKeys may never appear in a result.
var forbiddenKeys = map[string]bool{"command": true, "cwd": true, "evidence": true, "raw_path": true, "scope": true, "subject_path": true}

var errFirewall = errors.New("result refused by the firewall")

// firewall screens a successful producer result: no forbidden key
// anywhere, and every string printable, free of the root, of credentials
// and of absolute machine paths. It returns the result as compact JSON.
func firewall(v any, root string) (json.RawMessage, bool, error) {
	b, err := canon.Encode(v, canon.Options{Order: canon.Unsorted})
	if err != nil {
		return nil, false, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
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
			if !guard.Printable(t) || guard.ContainsRoot(t, root) || guard.Credential(t, guard.Firewall) || guard.MachinePath(t) {
				return nil, false, errFirewall
			}
		}
	}
	complete := true
	if c, ok := obj["complete"].(bool); ok {
		complete = c
	}
	return b, complete, nil
}
