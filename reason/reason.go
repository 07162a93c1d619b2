// Package reason owns refusals: the closed set of typed refusal codes that
// cross a boundary (the CLI's JSON, the MCP envelope), and the worded
// Refusal of create-vivary's writers and of a bad command line. An Error
// carries a Code and a fixed message; messages must never hold a path, a
// query or any other input.
package reason

import (
	"errors"
	"fmt"
)

// Code is one of the typed reasons below.
type Code string

const (
	UnknownWorkspace         Code = "unknown_workspace"
	PathRefused              Code = "path_refused"
	WorkspaceUnavailable     Code = "workspace_unavailable"
	ServerBusy               Code = "server_busy"
	ProducerUnavailable      Code = "producer_unavailable"
	PrivacyPolicyUnavailable Code = "privacy_policy_unavailable"
	WorkLimitExceeded        Code = "work_limit_exceeded"
	ResponseLimitExceeded    Code = "response_limit_exceeded"
	InvalidArguments         Code = "invalid_arguments"
)

// Error is a refusal with a typed code. Msg is a fixed sentence chosen by the
// code that raised it; it names what went wrong, never the value.
type Error struct {
	Code Code
	Msg  string
	Err  error // internal cause, never printed across a boundary
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an Error with the code and message.
func New(c Code, msg string) *Error { return &Error{Code: c, Msg: msg} }

// Wrap returns an Error with the code and message that keeps cause for errors.Is.
func Wrap(c Code, msg string, cause error) *Error { return &Error{Code: c, Msg: msg, Err: cause} }

// Refusal is a refusal worded for the person at the terminal, with no code
// to cross a boundary: how create-vivary's writers (init, adopt, record)
// refuse, nothing written or everything rolled back, and how a bad command
// line is refused. Its Error is Msg alone. Kind, when set, tells one sort
// of refusal from the others through errors.Is; it is never printed.
type Refusal struct {
	Msg  string
	Kind error
}

func (r *Refusal) Error() string { return r.Msg }

func (r *Refusal) Unwrap() error { return r.Kind }

// Refuse returns a Refusal with the formatted message and no Kind.
func Refuse(format string, a ...any) error { return &Refusal{Msg: fmt.Sprintf(format, a...)} }

// Of maps any error to its code: the code of the first *Error in the chain,
// otherwise producer_unavailable.
func Of(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ProducerUnavailable
}

// Status is the envelope status a code maps to: refused only for
// unknown_workspace and path_refused, unknown for every other code.
func (c Code) Status() string {
	if c == UnknownWorkspace || c == PathRefused {
		return "refused"
	}
	return "unknown"
}

// Exit codes, one table for vivary, create-vivary and vivary-mcp.
const (
	// ExitOK: answered, written, healthy, or served until input ended.
	ExitOK = 0
	// ExitFindings: the command ran and found problems in the workspace:
	// check found errors (or warnings when strict), doctor found problems.
	ExitFindings = 1
	// ExitRefused: nothing was answered or written: a usage error (a bad
	// flag or argument), a typed refusal, or a write refused or rolled back.
	ExitRefused = 2
)
