package adapter_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// recvRaw returns the next stdout line as it was written.
func (r *rawSession) recvRaw(t *testing.T) []byte {
	t.Helper()
	line, err := r.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read: %v (stderr %s)", err, r.stderr)
	}
	return bytes.TrimRight(line, "\n")
}

// rawID is the id of a response exactly as the server wrote it.
func rawID(t *testing.T, line []byte) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("not JSON: %q", line)
	}
	return string(m["id"])
}

// TestIDsEchoedExactly: a string or an integer in the signed 64-bit range
// comes back byte for byte, whatever a float64 would make of it; anything
// else is -32600 with id null, and the session goes on.
func TestIDsEchoedExactly(t *testing.T) {
	t.Parallel()
	r := startRaw(t, nil, "--workspace", "ws0", fixtureWS(t), "--observability", "off")
	for _, id := range []string{`"abc"`, `"1.5"`, `""`, `"\u00e9\n"`, `0`, `-0`, `7`, `-12`, `9007199254740993`,
		`9223372036854775807`, `-9223372036854775808`, `12345678901234567`} {
		r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/list","params":{%s}}`+"\n", id, meta))
		line := r.recvRaw(t)
		if got := rawID(t, line); got != id {
			t.Errorf("id %s answered as %s: %s", id, got, line)
		}
	}
	for _, id := range []string{`1.5`, `1.0`, `1e3`, `99999999999999999999`, `-9223372036854775809`, `null`, `true`, `{}`, `[1]`} {
		r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/list","params":{%s}}`+"\n", id, meta))
		line := r.recvRaw(t)
		var m map[string]any
		json.Unmarshal(line, &m)
		if errCode(m) != -32600 || rawID(t, line) != "null" {
			t.Errorf("id %s: %s", id, line)
		}
	}
	// A big id reaches the tool and a cancellation can still name it.
	r.send(t, `{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{`+meta+`,"name":"vivary_check","arguments":{"workspace":"ws0"}}}`+"\n")
	line := r.recvRaw(t)
	if rawID(t, line) != "9007199254740993" || !bytes.Contains(line, []byte(`"result"`)) {
		t.Fatalf("tools/call with a big id: %s", line)
	}
}

// TestSessionErrorCodes: the errors the SDK would send with code 0 have
// real codes.
func TestSessionErrorCodes(t *testing.T) {
	t.Parallel()
	r := startRaw(t, nil, "--workspace", "ws0", fixtureWS(t), "--observability", "off")
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"vivary_check","arguments":{"workspace":"ws0"}}}` + "\n"
	r.send(t, call)
	if m := r.recv(t); errCode(m) != -32600 || m["id"] != float64(1) {
		t.Fatalf("tools/call before initialize: %v", m)
	}
	init := `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}` + "\n"
	r.send(t, fmt.Sprintf(init, 2))
	if m := r.recv(t); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	r.send(t, fmt.Sprintf(init, 3))
	if m := r.recv(t); errCode(m) != -32600 || m["id"] != float64(3) {
		t.Fatalf("second initialize: %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	r.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"vivary_check","arguments":{"workspace":"ws0"}}}`+"\n")
	if m := r.recv(t); m["result"] == nil {
		t.Fatalf("tools/call after initialize: %v", m)
	}
	for i, v := range []string{`"2026-07-27"`, `"2027-01-01"`, `"1999-01-01"`, `"banana"`, `20260728`} {
		r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":%s,"io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n", 10+i, v))
		m := r.recv(t)
		e, _ := m["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if errCode(m) != -32022 || m["id"] != float64(10+i) || data == nil || fmt.Sprint(data["supported"]) == "" || data["supported"] == nil {
			t.Errorf("version %s: %v", v, m)
		}
	}
	// A fresh session whose first request is a modern one needs no
	// initialize.
	r2 := startRaw(t, nil, "--workspace", "ws0", fixtureWS(t), "--observability", "off")
	r2.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`+"\n")
	if m := r2.recv(t); m["result"] == nil {
		t.Fatalf("modern tools/list: %v", m)
	}
}

// TestDuplicateKeysInTheEnvelope: one message with a key twice (read one
// way by whatever stands between, another by the SDK) is refused like
// duplicate keys in arguments, whichever key and at whatever depth; the
// answer names the id only when it is stated once. The session goes on.
func TestDuplicateKeysInTheEnvelope(t *testing.T) {
	t.Parallel()
	r := startRaw(t, nil, "--workspace", "ws0", fixtureWS(t), "--observability", "off")
	for _, c := range []struct{ line, id string }{
		{`{"jsonrpc":"2.0","id":15,"id":16,"method":"tools/list","params":{` + meta + `}}`, "null"},
		{`{"jsonrpc":"2.0","id":15,"\u0069d":16,"method":"tools/list","params":{` + meta + `}}`, "null"},
		{`{"jsonrpc":"2.0","id":17,"method":"tools/list","method":"prompts/list","params":{` + meta + `}}`, "17"},
		{`{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{` + meta + `,"name":"vivary_find","name":"vivary_check","arguments":{"workspace":"ws0"}}}`, "18"},
		{`{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{` + meta + `,"name":"vivary_check","arguments":{"workspace":"ws0"},"arguments":{"workspace":"ws0"}}}`, "19"},
		{`{"jsonrpc":"2.0","jsonrpc":"2.0","id":20,"method":"tools/list","params":{` + meta + `}}`, "20"},
		// The same key in another case, which a decoder that matches
		// struct fields without case (encoding/json) reads as one.
		{`{"jsonrpc":"2.0","id":22,"ID":23,"method":"tools/list","params":{` + meta + `}}`, "null"},
		{`{"jsonrpc":"2.0","id":24,"method":"tools/list","METHOD":"tools/call","params":{` + meta + `}}`, "24"},
		{`{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{` + meta + `,"name":"vivary_check","NAME":"vivary_find","arguments":{"workspace":"ws0"}}}`, "25"},
		{`{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{` + meta + `,"name":"vivary_check","arguments":{"workspace":"ws0"},"Arguments":{"workspace":"ws0","paths":["x"]}}}`, "26"},
		{`{"jsonrpc":"2.0","id":27,"method":"tools/list","params":{` + meta + `},"paramſ":{}}`, "27"},
		{`{"jsonrpc":"2.0","id":28,"method":"tools/list","params":{` + meta + `,"_Meta":{}}}`, "28"},
	} {
		r.send(t, c.line+"\n")
		line := r.recvRaw(t)
		var m map[string]any
		json.Unmarshal(line, &m)
		if errCode(m) != -32600 || rawID(t, line) != c.id || !bytes.Contains(line, []byte("a key appears twice")) {
			t.Errorf("%s\nanswered %s", c.line, line)
		}
	}
	r.send(t, `{"jsonrpc":"2.0","id":21,"method":"tools/list","params":{`+meta+`}}`+"\n")
	if line := r.recvRaw(t); rawID(t, line) != "21" || !bytes.Contains(line, []byte(`"result"`)) {
		t.Fatalf("the session did not go on: %s", line)
	}
}

// TestTheEnvelopeIsReadAsTheSDKReadsIt: the adapter reads the keys it acts
// on (_meta, a cancellation's requestId) exactly as spelt, as the SDK
// does; a _META it took for _meta made it pass a request the SDK then
// failed as an internal error instead of asking for initialize first.
func TestTheEnvelopeIsReadAsTheSDKReadsIt(t *testing.T) {
	t.Parallel()
	r := startRaw(t, nil, "--workspace", "ws0", fixtureWS(t), "--observability", "off")
	upper := strings.Replace(meta, `"_meta"`, `"_META"`, 1)
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+upper+`}}`+"\n")
	if m := r.recv(t); errCode(m) != -32600 || m["id"] != float64(1) {
		t.Fatalf("_META before initialize: %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta+`}}`+"\n")
	if m := r.recv(t); m["result"] == nil {
		t.Fatalf("then a modern tools/list: %v", m)
	}
}
