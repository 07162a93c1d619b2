package adapter

import (
	"io"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/limits"
)

// Observability modes.
const (
	ObserveOff    = "off"
	ObserveErrors = "errors"
	ObserveJSON   = "json"
)

// DiagnosticSchema is the json-mode record schema.
const DiagnosticSchema = "vivary.mcp-observability/v0"

var events = map[string]bool{"server_started": true, "discovery_served": true, "tool_started": true, "tool_completed": true,
	"tool_refused": true, "tool_cancelled": true, "tool_timed_out": true, "frame_refused": true, "server_stopped": true}

// errorEvents are what errors mode writes: every refusal, cancellation and
// timeout, including an input frame refused before it was parsed.
var errorEvents = map[string]bool{"tool_refused": true, "tool_cancelled": true, "tool_timed_out": true, "frame_refused": true}

var outcomes = map[string]bool{"known": true, "unknown": true, "refused": true, "cancelled": true}

var reasonRe = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// Diag is one diagnostic before sanitising. Negative numbers mean absent.
type Diag struct {
	Event       string
	Tool        string
	Outcome     string
	Reason      string
	ElapsedMS   int64
	InputBytes  int64
	OutputBytes int64
}

// Diagnostics writes bounded, sanitary lines to one stream. Every field is
// checked against a closed vocabulary and dropped when it fails, so no
// alias, root, query, argument, path or error text can ever be written.
type Diagnostics struct {
	mu   sync.Mutex
	w    io.Writer
	mode string
	seq  int64
}

// NewDiagnostics writes to w in mode.
func NewDiagnostics(w io.Writer, mode string) *Diagnostics { return &Diagnostics{w: w, mode: mode} }

func okNumber(n int64) bool { return n >= 0 && n <= limits.MaxLosslessInt }

// Emit writes d if the mode wants it; write errors are ignored.
func (d *Diagnostics) Emit(e Diag) {
	if d == nil || d.mode == ObserveOff || !events[e.Event] {
		return
	}
	if d.mode == ObserveErrors && !errorEvents[e.Event] {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seq++
	var line []byte
	if d.mode == ObserveJSON {
		rec := map[string]any{"schema": DiagnosticSchema, "event": e.Event, "sequence": d.seq}
		if toolNames[e.Tool] {
			rec["tool"] = e.Tool
		}
		if outcomes[e.Outcome] {
			rec["outcome"] = e.Outcome
		}
		if reasonRe.MatchString(e.Reason) {
			rec["reason"] = e.Reason
		}
		for k, v := range map[string]int64{"elapsed_ms": e.ElapsedMS, "input_bytes": e.InputBytes, "output_bytes": e.OutputBytes} {
			if okNumber(v) {
				rec[k] = v
			}
		}
		b, err := canon.Encode(rec, canon.Options{Order: canon.CodePoint, ASCII: true})
		if err != nil {
			return
		}
		line = append(b, '\n')
	} else {
		line = []byte("vivary-mcp event=" + e.Event + " sequence=" + strconv.FormatInt(d.seq, 10))
		if toolNames[e.Tool] {
			line = append(line, " tool="+e.Tool...)
		}
		if outcomes[e.Outcome] {
			line = append(line, " outcome="+e.Outcome...)
		}
		if reasonRe.MatchString(e.Reason) {
			line = append(line, " reason="+e.Reason...)
		}
		if okNumber(e.ElapsedMS) {
			line = append(line, " elapsed_ms="+strconv.FormatInt(e.ElapsedMS, 10)...)
		}
		line = append(line, '\n')
	}
	if len(line) > MaxDiagnosticBytes {
		return
	}
	_, _ = d.w.Write(line)
}

func elapsedMS(start time.Time) int64 {
	ms := time.Since(start).Milliseconds()
	if ms < 0 {
		return 0
	}
	return ms
}
