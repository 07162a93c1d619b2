package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// mcpSession is vivary-mcp spoken to over its stdio, newline-delimited
// JSON-RPC: the bench lives in the root module, which never imports an
// MCP SDK, and needs nothing but requests and their answers.
type mcpSession struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int
	// progress, when set, is given each notifications/progress that
	// arrives while a request waits for its answer.
	progress func(params json.RawMessage)
}

func startMCP(bin, root string) (*mcpSession, error) {
	cmd := exec.Command(bin, "--workspace", "ws", root, "--observability", "off")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &mcpSession{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 2<<20)}
	if _, err := s.request("initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "vivary-bench", "version": "0"},
	}); err != nil {
		s.close()
		return nil, err
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *mcpSession) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.in.Write(append(b, '\n'))
	return err
}

func (s *mcpSession) request(method string, params any) (json.RawMessage, error) {
	s.next++
	id := s.next
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var resp struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &resp) != nil {
			continue
		}
		if resp.ID == nil && resp.Method == "notifications/progress" && s.progress != nil {
			s.progress(resp.Params)
		}
		if resp.ID == nil || *resp.ID != id {
			continue // a notification, or not ours
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, resp.Error)
		}
		return resp.Result, nil
	}
}

// call runs one tool and fails unless the envelope says known.
func (s *mcpSession) call(tool string, args map[string]any) error {
	known, why, err := s.try(tool, args)
	if err == nil && !known {
		err = fmt.Errorf("%s answered %s", tool, why)
	}
	return err
}

// try runs one tool and says whether the envelope says known, and if not,
// its reason; err is a failure of the session itself.
func (s *mcpSession) try(tool string, args map[string]any) (known bool, why string, err error) {
	return s.tryWith(tool, args, nil)
}

// tryWith is try with the request's _meta (nil: none).
func (s *mcpSession) tryWith(tool string, args, meta map[string]any) (known bool, why string, err error) {
	args["workspace"] = "ws"
	params := map[string]any{"name": tool, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	res, err := s.request("tools/call", params)
	if err != nil {
		return false, "", err
	}
	var r struct {
		IsError    bool `json:"isError"`
		Structured struct {
			Status string  `json:"status"`
			Reason *string `json:"reason"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return false, "", err
	}
	if r.IsError || r.Structured.Status != "known" {
		why = "?"
		if r.Structured.Reason != nil {
			why = *r.Structured.Reason
		}
		return false, why, nil
	}
	return true, "", nil
}

// close ends the session and returns the server's peak RSS in KiB.
func (s *mcpSession) close() int64 {
	s.in.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	return maxRSS(s.cmd.ProcessState)
}

// mcpArgs are the tool arguments of each producer for question q.
func mcpArgs(name, q string) (string, map[string]any) {
	switch name {
	case "query":
		return "vivary_query", map[string]any{"text": q, "limit": 10}
	case "find":
		return "vivary_find", map[string]any{"question": q}
	case "check":
		return "vivary_check", map[string]any{}
	}
	return "vivary_capsule", map[string]any{"question": q}
}

// mcpReport is what one vivary-mcp process over one workspace measured:
// spawn to the first answer, then warm calls of each producer, and the
// server's peak RSS.
type mcpReport struct {
	first time.Duration
	calls [][]time.Duration
	peak  int64
}

func measureMCP(bin, root string, runs int) (*mcpReport, error) {
	start := time.Now()
	s, err := startMCP(bin, root)
	if err != nil {
		return nil, err
	}
	rep := &mcpReport{}
	tool, args := mcpArgs("check", "")
	if err := s.call(tool, args); err != nil {
		s.close()
		return nil, err
	}
	rep.first = time.Since(start)
	for _, name := range callNames {
		tool, args := mcpArgs(name, questions[0])
		if err := s.call(tool, args); err != nil { // the search index, once
			s.close()
			return nil, err
		}
		var ds []time.Duration
		for i := 0; i < runs; i++ {
			tool, args := mcpArgs(name, questions[i%len(questions)])
			t0 := time.Now()
			if err := s.call(tool, args); err != nil {
				s.close()
				return nil, err
			}
			ds = append(ds, time.Since(t0))
		}
		rep.calls = append(rep.calls, ds)
	}
	rep.peak = s.close()
	return rep, nil
}

// runMCPOnly measures one vivary-mcp process over root and prints it.
func runMCPOnly(root string, runs int) error {
	tmp, err := os.MkdirTemp("", "vivary-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	_, bin, err := buildBinaries(tmp)
	if err != nil {
		return err
	}
	fmt.Printf("load average %s\n", loadavg())
	m, err := measureMCP(bin, root, runs)
	if err != nil {
		return err
	}
	fmt.Printf("vivary-mcp spawn -> first answer (check) %s; peak RSS %d MiB\n", ms(m.first), m.peak/1024)
	for i, name := range callNames {
		st := summarize(m.calls[i], 0)
		fmt.Printf("    warm over MCP %-8s p50 %s  p95 %s\n", name, ms(st.median), ms(st.p95))
	}
	fmt.Printf("load average at the end %s\n", loadavg())
	return nil
}

// buildBinaries builds vivary and vivary-mcp from this checkout into dir.
func buildBinaries(dir string) (vivary, mcp string, err error) {
	vivary, mcp = filepath.Join(dir, "vivary"), filepath.Join(dir, "vivary-mcp")
	for _, b := range [][2]string{{vivary, "./cmd/vivary"}, {mcp, "./mcp/cmd/vivary-mcp"}} {
		build := exec.Command("go", "build", "-o", b[0], b[1])
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return "", "", err
		}
	}
	return vivary, mcp, nil
}
