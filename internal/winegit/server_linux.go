package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

var prefix string // the Wine prefix, whose dosdevices map drive letters

func main() {
	portFile := flag.String("port-file", "", "write the port listened on to this file")
	flag.Parse()
	prefix = os.Getenv("WINEPREFIX")
	if prefix == "" {
		prefix = filepath.Join(os.Getenv("HOME"), ".wine")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	if err := os.WriteFile(*portFile, []byte(port), 0o644); err != nil {
		log.Fatal(err)
	}
	for {
		conn, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go serve(conn)
	}
}

func serve(conn net.Conn) {
	defer conn.Close()
	// The whole request, to the client's half-close: closing with any of
	// it unread would reset the connection (see the client).
	raw, err := io.ReadAll(io.LimitReader(conn, 1<<30))
	var req request
	if err != nil || json.Unmarshal(raw, &req) != nil {
		log.Printf("winegit: a request could not be read: %v", err)
		return
	}
	json.NewEncoder(conn).Encode(run(req))
}

func run(req request) response {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := make([]string, len(req.Args))
	for i, a := range req.Args {
		// A path may stand alone or after "key=" (-c core.excludesFile=…).
		if k, v, ok := strings.Cut(a, "="); ok && drive.MatchString(v) {
			args[i] = k + "=" + toLinux(v)
		} else {
			args[i] = toLinux(a)
		}
	}
	cmd := exec.CommandContext(ctx, "/usr/bin/git", args...)
	cmd.Dir = toLinux(req.Dir)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	for _, kv := range req.Env {
		k, v, _ := strings.Cut(kv, "=")
		cmd.Env = append(cmd.Env, k+"="+toLinux(v))
	}
	cmd.Stdin = bytes.NewReader(req.Stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	resp := response{Stdout: toWindowsPaths(args, out.Bytes()), Stderr: errb.Bytes()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		resp.Code = ee.ExitCode()
	case err != nil:
		resp.Stderr, resp.Code = []byte(err.Error()), 128
	}
	return resp
}

var drive = regexp.MustCompile(`^([A-Za-z]):[\\/]`)

// toLinux turns a Windows path into the Linux path Wine maps it to, and
// leaves anything else as it is.
func toLinux(p string) string {
	m := drive.FindStringSubmatch(p)
	if m == nil {
		return p
	}
	dev := filepath.Join(prefix, "dosdevices", strings.ToLower(m[1])+":")
	target, err := filepath.EvalSymlinks(dev)
	if err != nil {
		return p
	}
	return filepath.Join(target, filepath.FromSlash(strings.ReplaceAll(p[3:], `\`, "/")))
}

// toWindows is toLinux's inverse, in Git for Windows' form (C:/…).
func toWindows(p string) string {
	c, err := filepath.EvalSymlinks(filepath.Join(prefix, "drive_c"))
	if err == nil && (p == c || strings.HasPrefix(p, c+"/")) {
		return "C:/" + strings.TrimPrefix(strings.TrimPrefix(p, c), "/")
	}
	return "Z:" + p
}

// toWindowsPaths rewrites the absolute paths in the output of the git
// commands that print them: rev-parse's folders and config's path values.
func toWindowsPaths(args []string, out []byte) []byte {
	prints := false
	for _, a := range args {
		switch a {
		case "--show-toplevel", "--git-dir", "--absolute-git-dir", "--git-common-dir", "--path", "--type=path":
			prints = true
		}
	}
	if !prints {
		return out
	}
	// Records end in \n or \0; config -z puts the value after a \n.
	return regexp.MustCompile(`(^|[\n\x00])(/[^\n\x00]*)`).ReplaceAllFunc(out, func(m []byte) []byte {
		lead := ""
		if m[0] != '/' {
			lead, m = string(m[:1]), m[1:]
		}
		return []byte(lead + toWindows(string(m)))
	})
}
