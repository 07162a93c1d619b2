package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// versionLine is what vivary-mcp --version prints.
var versionLine = regexp.MustCompile(`^vivary-mcp (v\d+\.\d+\.\d+\S*|\(devel\)( [0-9a-f]{12}(\+dirty)?)?)\n$`)

// needNPM: what the npm test needs from the host; without node and npm
// (which ./test.sh requires) it is skipped.
func needNPM(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	if _, ok := npmPlatforms[[2]string{runtime.GOOS, runtime.GOARCH}]; !ok {
		t.Skipf("no npm package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
}

// TestNPMLauncher builds the npm packages from a GoReleaser-shaped dist
// holding this platform's vivary-mcp, packs them, installs the tarballs
// into a fresh prefix with npm offline, and runs the launcher as a client
// would: `npx vivary-mcp --version`, an MCP session over its standard
// streams, a refused command line's exit code, and a SIGTERM that must
// reach the server.
func TestNPMLauncher(t *testing.T) {
	needNPM(t)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	binDir := filepath.Join(dist, "vivary-mcp_"+runtime.GOOS+"_"+runtime.GOARCH)
	build := exec.Command("go", "build", "-o", filepath.Join(binDir, "vivary-mcp"), "./mcp/cmd/vivary-mcp")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// GoReleaser records each path relative to the directory holding dist.
	arts, _ := json.Marshal([]map[string]any{
		{"name": "vivary-mcp", "path": filepath.Join("dist", filepath.Base(binDir), "vivary-mcp"), "goos": runtime.GOOS, "goarch": runtime.GOARCH, "type": "Binary"},
		{"name": "vivary_linux_amd64.tar.gz", "path": "dist/vivary_linux_amd64.tar.gz", "goos": "linux", "goarch": "amd64", "type": "Archive"},
	})
	if err := os.WriteFile(filepath.Join(dist, "artifacts.json"), arts, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "npm-out")
	if err := NPM(repo, dist, out, "v0.9.9-pseudo", false); err != nil {
		t.Fatal(err)
	}
	if err := NPM(repo, dist, filepath.Join(tmp, "partial"), "v0.9.9-pseudo", true); err == nil {
		t.Error("a release with one platform's binary was not refused")
	}

	npmEnv := append(os.Environ(), "npm_config_cache="+filepath.Join(tmp, "npm-cache"), "npm_config_offline=true",
		"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false", "npm_config_loglevel=error")
	platformPkg := filepath.Join(out, "@vivary", "vivary-mcp-"+npmPlatforms[[2]string{runtime.GOOS, runtime.GOARCH}][0]+"-"+npmPlatforms[[2]string{runtime.GOOS, runtime.GOARCH}][1])
	tarballs := filepath.Join(tmp, "tarballs")
	var packed []string
	for _, dir := range []string{platformPkg, filepath.Join(out, "vivary-mcp")} {
		manifest, _ := os.ReadFile(filepath.Join(dir, "package.json"))
		if strings.Contains(string(manifest), `"scripts"`) {
			t.Errorf("%s has scripts: %s", dir, manifest)
		}
		os.MkdirAll(tarballs, 0o755)
		cmd := exec.Command("npm", "pack", "--pack-destination", tarballs, dir)
		cmd.Env = npmEnv
		name, err := cmd.Output()
		if err != nil {
			t.Fatalf("npm pack %s: %v", dir, err)
		}
		packed = append(packed, filepath.Join(tarballs, strings.TrimSpace(string(name))))
	}
	prefix := filepath.Join(tmp, "prefix")
	os.MkdirAll(prefix, 0o755)
	os.WriteFile(filepath.Join(prefix, "package.json"), []byte(`{"private":true}`), 0o644)
	install := exec.Command("npm", append([]string{"install", "--no-save"}, packed...)...)
	install.Dir = prefix
	install.Env = npmEnv
	if b, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install from the tarballs: %v\n%s", err, b)
	}

	if _, err := os.Stat(filepath.Join(prefix, "node_modules", "vivary-mcp", "README.md")); err != nil {
		t.Errorf("the launcher package has no README: %v", err)
	}
	// The README's npx line, as written.
	readme, _ := os.ReadFile(filepath.Join(repo, "README.md"))
	line := regexp.MustCompile(`(?m)^\s*(npx -y vivary-mcp --version)\s*$`).FindSubmatch(readme)
	if line == nil {
		t.Fatal("README has no `npx -y vivary-mcp --version` line")
	}
	argv := strings.Fields(string(line[1]))
	npx := exec.Command(argv[0], argv[1:]...)
	npx.Dir = prefix
	npx.Env = npmEnv
	got, err := npx.Output()
	if err != nil || !versionLine.MatchString(string(got)) {
		t.Fatalf("npx -y vivary-mcp --version: %q %v", got, err)
	}

	launcher := filepath.Join(prefix, "node_modules", ".bin", "vivary-mcp")
	t.Run("claude", func(t *testing.T) { claudeThroughNPX(t, repo, prefix, readme, npmEnv) })
	// A copy: a workspace inside this repository's Git tree would be held
	// to that tree's rules.
	ws := filepath.Join(tmp, "ws")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(repo, "examples", "workspace"))); err != nil {
		t.Fatal(err)
	}

	// A refused command line: the server's exit code 2 and its message.
	bad := exec.Command(launcher, "--workspace", "Bad Alias!", ws)
	var stderr strings.Builder
	bad.Stderr = &stderr
	if err := bad.Run(); exitCode(err) != 2 || !strings.Contains(stderr.String(), "vivary-mcp: error: ") {
		t.Errorf("bad alias: exit %d, stderr %q", exitCode(err), stderr.String())
	}

	// A session: frames pass both ways untouched; end of input ends it, exit 0.
	s := startSession(t, launcher, "--workspace", "docs", ws)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"npm-test","version":"0"}}}`)
	if r := s.recv(); !strings.Contains(r, `"serverInfo":{"name":"vivary","version":"`+strings.TrimPrefix(strings.TrimSpace(string(got)), "vivary-mcp ")+`"`) {
		t.Fatalf("initialize answered %s", r)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"vivary_check","arguments":{"workspace":"docs"}}}`)
	if r := s.recv(); !strings.Contains(r, `"id":2`) || !strings.Contains(r, `\"status\":\"known\"`) {
		t.Fatalf("vivary_check answered %s", r)
	}
	s.stdin.Close()
	if err := s.wait(); err != nil {
		t.Errorf("after end of input: %v", err)
	}

	// SIGTERM to the launcher reaches the server, which exits; so does the launcher.
	if runtime.GOOS != "linux" {
		return
	}
	s = startSession(t, launcher, "--workspace", "docs", ws)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"npm-test","version":"0"}}}`)
	s.recv()
	child := childOf(t, s.cmd.Process.Pid)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.wait()
	deadline := time.Now().Add(20 * time.Second)
	for alive(child) {
		if time.Now().After(deadline) {
			t.Fatalf("vivary-mcp (pid %d) outlived the launcher's SIGTERM", child)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type session struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	done  chan error
}

func startSession(t *testing.T, launcher string, args ...string) *session {
	t.Helper()
	cmd := exec.Command(launcher, args...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout), done: make(chan error, 1)}
	t.Cleanup(func() { cmd.Process.Kill(); s.wait() })
	return s
}

func (s *session) send(frame string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, frame+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// recv reads one frame; a server that never answers fails the test when
// the deadline (generous: CI is busy) passes.
func (s *session) recv() string {
	s.t.Helper()
	line := make(chan string, 1)
	go func() {
		l, _ := s.out.ReadString('\n')
		line <- l
	}()
	select {
	case l := <-line:
		return l
	case <-time.After(30 * time.Second):
		s.t.Fatal("no answer through the launcher")
		return ""
	}
}

func (s *session) wait() error {
	if s.done == nil {
		return nil
	}
	err := s.cmd.Wait()
	s.done = nil
	return err
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// childOf is the one child process of pid (Linux: /proc's children list).
func childOf(t *testing.T, pid int) int {
	t.Helper()
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		var child int
		if _, err := fmt.Sscan(string(b), &child); err == nil {
			return child
		}
	}
	t.Fatalf("the launcher (pid %d) has no child", pid)
	return 0
}

// alive reports whether pid still runs (a zombie awaiting its reaper does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// claudeThroughNPX configures Claude Code (from interop/, where ./test.sh
// installs it) with the README's npx recipe, run in the folder where the
// packages are installed, so npx finds vivary-mcp there with no network; the
// server must show as connected.
func claudeThroughNPX(t *testing.T, repo, prefix string, readme []byte, env []string) {
	claude := filepath.Join(repo, "interop", "node_modules", ".bin", "claude")
	if _, err := os.Stat(claude); err != nil {
		t.Skip("Claude Code is not installed in interop/ (./test.sh installs it)")
	}
	line := regexp.MustCompile(`(?m)^(claude mcp add vivary -- npx -y vivary-mcp .*/abs/path/to/notes)$`).FindSubmatch(readme)
	if line == nil {
		t.Fatal("README has no `claude mcp add vivary -- npx -y vivary-mcp …` line")
	}
	ws := filepath.Join(prefix, "notes")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(repo, "examples", "workspace"))); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env = append(env, "HOME="+home, "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	run := func(args ...string) string {
		cmd := exec.Command(claude, args...)
		cmd.Dir = prefix
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(strings.Fields(strings.ReplaceAll(string(line[1]), "/abs/path/to/notes", ws))[1:]...)
	if out := run("mcp", "list"); !regexp.MustCompile(`(?m)^vivary: npx -y vivary-mcp .* - ✔ Connected$`).MatchString(out) {
		t.Errorf("claude mcp list:\n%s", out)
	}
}
