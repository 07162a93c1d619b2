package adapter

import (
	"time"

	"github.com/vivary-dev/vivary-go/limits"
)

// The adapter's published ceilings. They are the contract, not tuning. The
// argument bounds it shares with the producers are the core's own constants
// (package limits), so the two can never disagree.
const (
	// ProtocolVersion is the pinned MCP protocol revision.
	ProtocolVersion = "2026-07-28"
	// MaxWorkspaces bounds the operator-bound workspaces per process.
	MaxWorkspaces = 16
	// MaxAliasChars bounds a workspace alias.
	MaxAliasChars = 64
	// MaxFrameBytes bounds one inbound frame, its newline included.
	MaxFrameBytes = 65536
	// MaxTextChars bounds a question or query text, in code points.
	MaxTextChars = limits.MaxQueryChars
	// MaxResponseBytes bounds the complete JSON-escaped tool response.
	MaxResponseBytes = 1 << 20
	// ResponseAllowance is kept free for the JSON-RPC wrapper around a result.
	ResponseAllowance = 4096
	// MaxDiagnosticBytes bounds one standard-error diagnostic line.
	MaxDiagnosticBytes = 4096
	// MaxEnvelopeOmissions bounds the envelope's omission rows.
	MaxEnvelopeOmissions = 8
	// MaxMessageChars bounds a failure envelope's message: a sentence or
	// two that says what to fix, never a dump.
	MaxMessageChars = 1024
	// ProducerTimeout is how long one producer call may run.
	ProducerTimeout = 30 * time.Second
	// CancellationGrace is how long a cancelled producer is waited for.
	CancellationGrace = 5 * time.Second
	// EOFDrain bounds how long answers to calls in flight are awaited after
	// stdin ends, so `printf REQUEST | vivary-mcp` still gets its answer.
	EOFDrain = CancellationGrace + ProducerTimeout + time.Second
)
