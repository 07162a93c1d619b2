package adapter_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
)

// TestNoWriteNoNetwork runs a whole session under strace, children (git)
// included: no network syscall at all, no directory made, no name removed
// or renamed, and no file opened for writing but the null device.
func TestNoWriteNoNetwork(t *testing.T) {
	t.Parallel()
	strace, err := exec.LookPath("strace")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("strace is required in CI (.ci/run installs it)")
		}
		t.Skip("strace is not installed")
	}
	root := fixtureWS(t)
	testws.Git(t, root, "init", "-q")
	testws.Git(t, root, "add", "-A")
	testws.Git(t, root, "commit", "-qm", "init")
	before := testws.Hash(t, root)
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-ff", "-qq", "-e", "signal=none",
		"-e", "trace=%network,openat,open,creat,mkdir,mkdirat,unlink,unlinkat,rename,renameat,renameat2,truncate,ftruncate",
		"-o", trace, bin, "--workspace", "ws0", root, "--observability", "off")
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rawSession{cmd: cmd, in: in, out: bufio.NewReaderSize(outPipe, 1<<21)}
	for i, call := range []string{
		`"name":"vivary_find","arguments":{"workspace":"ws0","question":"adapter"}`,
		`"name":"vivary_query","arguments":{"workspace":"ws0","text":"policy","explain":true}`,
		`"name":"vivary_check","arguments":{"workspace":"ws0"}`,
		`"name":"vivary_capsule","arguments":{"workspace":"ws0","question":"what changed in the adapter"}`,
	} {
		r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s,%s}}`+"\n", i+1, meta, call))
		if m := r.recv(t); m["result"] == nil {
			t.Fatalf("call %d: %v", i+1, m)
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	files, _ := filepath.Glob(trace + ".*")
	if len(files) < 2 {
		t.Fatalf("strace wrote %d files; git children were not traced", len(files))
	}
	network := regexp.MustCompile(`^(socket|connect|bind|listen|accept4?|sendto|sendmsg|recvfrom|recvmsg|socketpair)\(`)
	mutate := regexp.MustCompile(`^(mkdir|mkdirat|unlink|unlinkat|rename|renameat|renameat2|truncate|ftruncate|creat)\(`)
	writeOpen := regexp.MustCompile(`O_WRONLY|O_RDWR|O_CREAT|O_TRUNC`)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case line == "" || strings.HasPrefix(line, "+++") || strings.HasPrefix(line, "---"):
			case network.MatchString(line):
				t.Errorf("network syscall: %s", line)
			case mutate.MatchString(line) && !strings.Contains(line, "= -1"):
				t.Errorf("filesystem change: %s", line)
			case strings.HasPrefix(line, "open") && writeOpen.MatchString(line) && !strings.Contains(line, `"/dev/null"`):
				t.Errorf("opened for writing: %s", line)
			}
		}
	}
	if testws.Hash(t, root) != before {
		t.Fatal("the session changed the workspace")
	}
}
