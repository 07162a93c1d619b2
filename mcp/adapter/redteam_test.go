package adapter_test

import (
	"bytes"
	"encoding/json"
	"testing"
)

// An error answer never repeats what the client sent (the SDK's messages
// quote the params it could not decode and the unknown method), a params
// decoding failure is -32602 whichever method, and a request the SDK
// cannot take whose id was readable is answered under that id.
func TestErrorsRepeatNothingTheClientSent(t *testing.T) {
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	r := startRaw(t, nil, "--workspace", "ws0", fixtureWS(t), "--observability", "off")
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":{"x":"`+secret+`"},"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`+"\n")
	line := r.recvRaw(t)
	var m map[string]any
	json.Unmarshal(line, &m)
	if errCode(m) != -32602 || bytes.Contains(line, []byte(secret)) {
		t.Fatalf("initialize with a bad version: %s", line)
	}
	r.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`+"\n")
	if m := r.recv(t); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	for _, f := range []struct {
		frame string
		code  float64
		id    string
	}{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":["` + secret + `"],` + "\"x\":0}", -32602, "2"},
		{`{"jsonrpc":"2.0","id":3,"method":"` + secret + `","params":{` + meta + `}}`, -32601, "3"},
		{`{"id":4,"method":"tools/list"}`, -32600, "4"},
		{`{"jsonrpc":"2.0","id":"five","method":5}`, -32600, `"five"`},
	} {
		r.send(t, f.frame+"\n")
		line := r.recvRaw(t)
		var m map[string]any
		json.Unmarshal(line, &m)
		if errCode(m) != f.code || rawID(t, line) != f.id || bytes.Contains(line, []byte(secret)) {
			t.Errorf("%s\n answered %s", f.frame, line)
		}
	}
}
