package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	exe, _ := os.Executable()
	port, err := os.ReadFile(filepath.Join(filepath.Dir(exe), "git.port"))
	if err != nil {
		fail(err)
	}
	dir, _ := os.Getwd()
	req := request{Args: os.Args[1:], Dir: dir}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k = strings.ToUpper(k); {
		case k == "HOME", k == "XDG_CONFIG_HOME", k == "LC_ALL", strings.HasPrefix(k, "GIT_"):
			req.Env = append(req.Env, kv)
		}
	}
	if req.Stdin, err = io.ReadAll(os.Stdin); err != nil {
		req.Stdin = nil
	}
	conn, err := net.Dial("tcp", "127.0.0.1:"+strings.TrimSpace(string(port)))
	if err != nil {
		fail(err)
	}
	defer conn.Close()
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		fail(err)
	}
	// The end of the request, so that the server can read it whole: a
	// server that closes with bytes unread (the encoder's newline, say)
	// sends a reset, which can discard its answer before it is read.
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		fail(err)
	}
	var resp response
	if err := json.NewDecoder(conn).Decode(&resp); err != nil {
		fail(err)
	}
	os.Stdout.Write(resp.Stdout)
	os.Stderr.Write(resp.Stderr)
	os.Exit(resp.Code)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "winegit:", err)
	os.Exit(128)
}
