package adapter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			c.errorLine(jsonrpc.CodeInvalidRequest, "invalid request")
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			c.track(req)
		}
		select {
		case c.in <- msg:
		case <-c.done:
			return
		}
	}
}

func (c *frameConn) track(req *jsonrpc.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.IsCall() {
		c.pending[req.ID] = true
		return
	}
	if req.Method == "notifications/cancelled" {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() && c.pending[id] {
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
	if r, ok := m.(*jsonrpc.Response); ok && c.answered(r.ID) {
		return nil
	}
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

func (c *frameConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *frameConn) SessionID() string { return "" }
