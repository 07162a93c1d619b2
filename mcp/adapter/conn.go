package adapter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vivary-dev/vivary-go/canon"
)

// FrameReader reads newline-delimited frames of at most MaxFrameBytes bytes,
// the newline included. It never reads past a refused frame.
type FrameReader struct {
	br  *bufio.Reader
	err error
	why string
}

// NewFrameReader reads frames from r.
func NewFrameReader(r io.Reader) *FrameReader {
	return &FrameReader{br: bufio.NewReaderSize(r, MaxFrameBytes+1)}
}

// ErrFrame is a frame over the limit, without its newline at the end of the
// input, or not valid UTF-8. After it the reader only returns it again.
var ErrFrame = errors.New("frame refused")

// Why names the refusal after ErrFrame: frame_too_long,
// frame_unterminated or frame_not_utf8 (a reason code, never frame content).
func (f *FrameReader) Why() string { return f.why }

// Next returns the next frame without its newline, io.EOF at a clean end, or
// ErrFrame.
func (f *FrameReader) Next() ([]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	// ReadSlice returns at most the buffer (MaxFrameBytes+1 bytes) and never
	// reads beyond the first newline it finds.
	line, err := f.br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull, err == nil && len(line) > MaxFrameBytes:
		f.err, f.why = ErrFrame, "frame_too_long"
	case err == io.EOF && len(line) == 0:
		f.err = io.EOF
	case err != nil:
		f.err, f.why = ErrFrame, "frame_unterminated" // at EOF, or a read error
	case !utf8.Valid(line):
		f.err, f.why = ErrFrame, "frame_not_utf8"
	}
	if f.err != nil {
		return nil, f.err
	}
	out := make([]byte, len(line)-1)
	copy(out, line)
	return out, nil
}

// stdioTransport is an mcp.Transport over the claimed wire streams.
type stdioTransport struct {
	in    io.Reader
	out   io.Writer
	drain time.Duration
	diag  *Diagnostics
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &frameConn{
		frames: NewFrameReader(t.in), w: t.out, in: make(chan jsonrpc.Message), done: make(chan struct{}),
		cancelled: map[jsonrpc.ID]bool{}, pending: map[jsonrpc.ID]bool{}, drained: make(chan struct{}), drain: t.drain,
		diag: t.diag,
		ids:  map[jsonrpc.ID]json.RawMessage{}, byKey: map[string]jsonrpc.ID{},
	}
	go c.loop()
	return c, nil
}

// frameConn enforces the exact frame limit, answers bad frames, drops the
// response to a cancelled call (the protocol expects none), and holds EOF
// back until calls in flight have answered (the SDK cancels them on EOF).
type frameConn struct {
	frames  *FrameReader
	w       io.Writer
	wmu     sync.Mutex
	in      chan jsonrpc.Message
	readErr error
	done    chan struct{}
	once    sync.Once
	drain   time.Duration
	diag    *Diagnostics

	mu        sync.Mutex
	cancelled map[jsonrpc.ID]bool
	pending   map[jsonrpc.ID]bool
	eof       bool
	drained   chan struct{}
	closedD   bool

	// ids holds the client's id, byte for byte, of each call in flight
	// under the id the SDK sees (its decoder reads numbers as float64, so
	// 2^53+1 or -0 would come back changed); byKey finds a call by the
	// client's id for notifications/cancelled.
	ids   map[jsonrpc.ID]json.RawMessage
	byKey map[string]jsonrpc.ID
	seq   int64
	// session is what the loop knows of initialization, to answer with
	// real codes where the SDK would answer code 0.
	initSent bool
	initID   jsonrpc.ID
}

func (c *frameConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

func (c *frameConn) errorLine(code int64, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	_ = c.writeLine(b)
}

func (c *frameConn) loop() {
	defer close(c.in)
	for {
		line, err := c.frames.Next()
		if err == ErrFrame {
			// Fail closed: never parse it, answer once, say why on the
			// diagnostics stream (the reason only), end the session.
			c.errorLine(jsonrpc.CodeInvalidRequest, "frame refused: over 65536 bytes, unterminated or not UTF-8")
			c.diag.Emit(Diag{Event: "frame_refused", Outcome: "refused", Reason: c.frames.Why(), ElapsedMS: -1, InputBytes: -1, OutputBytes: -1})
			c.readErr = io.EOF
			return
		}
		if err != nil {
			c.readErr = err
			return
		}
		line = bytes.TrimRight(line, " \t\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !json.Valid(line) {
			c.errorLine(jsonrpc.CodeParseError, "parse error")
			continue
		}
		var fields map[string]json.RawMessage
		rawID, hasID := json.RawMessage(nil), false
		if json.Unmarshal(line, &fields) == nil {
			rawID, hasID = fields["id"]
		}
		if _, err := canon.DecodeStrict(line); errors.Is(err, canon.ErrDuplicateKey) {
			// One message read two ways (whatever stands between the
			// client and this server may act on the first of two keys, the
			// SDK on the last) is refused, as duplicate keys in arguments
			// are. The answer names the id only when it is stated once.
			const dup = "invalid request: a key appears twice in one object"
			if hasID && statedOnce(line, "id") {
				if _, ok := idKey(rawID); ok {
					c.answer(rawID, jsonrpc.CodeInvalidRequest, dup, nil)
					continue
				}
			}
			c.errorLine(jsonrpc.CodeInvalidRequest, dup)
			continue
		}
		key := ""
		if hasID {
			var ok bool
			if key, ok = idKey(rawID); !ok {
				c.errorLine(jsonrpc.CodeInvalidRequest, "invalid request: an id is a string or an integer in the signed 64-bit range")
				continue
			}
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			if hasID {
				// The id was readable, so the answer names it.
				c.answer(rawID, jsonrpc.CodeInvalidRequest, "invalid request", nil)
			} else {
				c.errorLine(jsonrpc.CodeInvalidRequest, "invalid request")
			}
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			if req.IsCall() {
				if code, text, data := c.session(req); code != 0 {
					c.answer(rawID, code, text, data)
					continue
				}
				req.ID = c.mapID(rawID, key)
				if req.Method == "initialize" {
					c.mu.Lock()
					c.initID = req.ID
					c.mu.Unlock()
				}
			} else if req.Method == "notifications/cancelled" {
				req.Params = c.mapCancelled(req.Params)
			}
			c.track(req)
		}
		select {
		case c.in <- msg:
		case <-c.done:
			return
		}
	}
}

// statedOnce reports whether the object line names key exactly once at
// its top level, in any case (as canon.ErrDuplicateKey counts keys).
func statedOnce(line []byte, key string) bool {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	n := 0
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return false
		}
		if k, _ := kt.(string); strings.EqualFold(k, key) {
			n++
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return false
		}
	}
	return n == 1
}

// idKey reports whether raw is an id the wire accepts (a string, or an
// integer literal in the signed 64-bit range) and a key equal for equal ids.
func idKey(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s" + s, true
	}
	if !intLiteral.Match(raw) {
		return "", false
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return "", false
	}
	return "i" + strconv.FormatInt(v, 10), true
}

var intLiteral = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)$`)

// mapID records the client's id and returns the one the SDK sees.
func (c *frameConn) mapID(raw json.RawMessage, key string) jsonrpc.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	id, _ := jsonrpc.MakeID("vivary-call-" + strconv.FormatInt(c.seq, 10))
	c.ids[id] = append(json.RawMessage(nil), bytes.TrimSpace(raw)...)
	c.byKey[key] = id
	return id
}

// mapCancelled points a cancellation at the id the SDK knows the call by.
func (c *frameConn) mapCancelled(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	key, ok := idKey(p["requestId"])
	if !ok {
		return params
	}
	c.mu.Lock()
	id, found := c.byKey[key]
	c.mu.Unlock()
	if !found {
		return params
	}
	p["requestId"], _ = json.Marshal(id.Raw())
	b, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return b
}

// session answers what the SDK would answer with code 0: a call before
// initialize (-32600), a second initialize (-32600), and a request naming
// a protocol version the server does not speak (-32022 with the versions
// it does). It returns code 0 to pass the call on.
func (c *frameConn) session(req *jsonrpc.Request) (int64, string, any) {
	// Keys as spelt, as the SDK reads them (encoding/json's struct fields
	// would take a _META for _meta).
	var p, meta map[string]json.RawMessage
	_ = json.Unmarshal(req.Params, &p)
	_ = json.Unmarshal(p["_meta"], &meta)
	modern := false
	if v, ok := meta[mcp.MetaKeyProtocolVersion]; ok {
		var version string
		if json.Unmarshal(v, &version) != nil || !slices.Contains(mcp.SupportedProtocolVersions(), version) {
			return mcp.CodeUnsupportedProtocolVersion, "unsupported protocol version",
				map[string]any{"supported": mcp.SupportedProtocolVersions(), "requested": v}
		}
		modern = version >= modernProtocol
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case modern:
		// The SDK takes the first modern request's _meta as the session's
		// initialization.
		c.initSent = true
	case req.Method == "initialize":
		if c.initSent {
			return jsonrpc.CodeInvalidRequest, "invalid request: the session is already initialized", nil
		}
		c.initSent = true
	case !c.initSent && req.Method != "ping" && req.Method != "server/discover":
		return jsonrpc.CodeInvalidRequest, "invalid request: send initialize first", nil
	}
	return 0, "", nil
}

const modernProtocol = "2026-07-28"

// answer writes an error response that echoes the client's id as sent.
func (c *frameConn) answer(rawID json.RawMessage, code int64, msg string, data any) {
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(bytes.TrimSpace(rawID)), "error": e})
	_ = c.writeLine(b)
}

func (c *frameConn) track(req *jsonrpc.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.IsCall() {
		c.pending[req.ID] = true
		return
	}
	if req.Method == "notifications/cancelled" {
		var p map[string]any
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p["requestId"]); err == nil && id.IsValid() && c.pending[id] {
				c.cancelled[id] = true
			}
		}
	}
}

// answered records a response; it reports whether to drop it.
func (c *frameConn) answered(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	drop := c.cancelled[id]
	delete(c.cancelled, id)
	delete(c.pending, id)
	if c.eof && len(c.pending) == 0 && !c.closedD {
		c.closedD = true
		close(c.drained)
	}
	return drop
}

func (c *frameConn) waitDrained(ctx context.Context) {
	c.mu.Lock()
	c.eof = true
	if len(c.pending) == 0 && !c.closedD {
		c.closedD = true
		close(c.drained)
	}
	c.mu.Unlock()
	t := time.NewTimer(c.drain)
	defer t.Stop()
	select {
	case <-c.drained:
	case <-ctx.Done():
	case <-c.done:
	case <-t.C:
	}
}

func (c *frameConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m, ok := <-c.in:
		if !ok {
			c.waitDrained(ctx)
			if c.readErr != nil && c.readErr != io.EOF {
				return nil, c.readErr
			}
			return nil, io.EOF
		}
		return m, nil
	case <-c.done:
		return nil, io.EOF
	}
}

func (c *frameConn) Write(ctx context.Context, m jsonrpc.Message) error {
	r, ok := m.(*jsonrpc.Response)
	if !ok {
		b, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			return err
		}
		return c.writeLine(b)
	}
	drop := c.answered(r.ID)
	c.mu.Lock()
	raw, mapped := c.ids[r.ID]
	delete(c.ids, r.ID)
	if r.Error != nil && r.ID == c.initID && c.initSent && r.ID.IsValid() {
		// A failed initialize leaves the session uninitialized.
		c.initSent = false
	}
	c.mu.Unlock()
	if drop {
		return nil
	}
	if r.Error != nil {
		r = &jsonrpc.Response{ID: r.ID, Error: publicError(r.Error)}
	}
	b, err := jsonrpc.EncodeMessage(r)
	if err != nil {
		return err
	}
	if mapped {
		// The id goes back as the client wrote it.
		var wire map[string]json.RawMessage
		if err := json.Unmarshal(b, &wire); err != nil {
			return err
		}
		wire["id"] = raw
		if b, err = json.Marshal(wire); err != nil {
			return err
		}
	}
	return c.writeLine(b)
}

func (c *frameConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *frameConn) SessionID() string { return "" }

// publicError is the error a client is sent: a real code, and a message
// that never repeats what the client sent. The SDK's own messages quote
// the params it could not decode and the method it does not know, which
// may hold anything (a credential pasted into a field); they become fixed
// sentences. A params decoding failure is -32602, whatever the SDK said.
func publicError(err error) *jsonrpc.Error {
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	switch {
	case strings.Contains(we.Message, "unmarshaling") || strings.Contains(we.Message, "invalid params"):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params"}
	case we.Code == jsonrpc.CodeMethodNotFound:
		return &jsonrpc.Error{Code: we.Code, Message: "method not found"}
	case we.Code == 0 || we.Code == jsonrpc.CodeInternalError:
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
	}
	return we
}
