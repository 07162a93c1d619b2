//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/cli"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"golang.org/x/sys/unix"
)

// While another writer holds the workspace, an apply is refused and writes
// nothing; a preview still works.
func TestRecordApplyWaitsForNoOtherWriter(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	args, hash := recordSetup(t, dir, ws, "locked")
	before := testws.Hash(t, ws)
	held, err := os.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := unix.Flock(int(held.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(cli.Create, append(args, "--apply", hash)...)
	if code != cli.ExitUsage || !strings.Contains(stderr, "record apply refused: another create-vivary write is running in this workspace") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(cli.Create, args...); code != 0 {
		t.Fatalf("preview while locked: %s", stderr)
	}
	if testws.Hash(t, ws) != before {
		t.Fatal("a refused apply changed the workspace")
	}
	unix.Flock(int(held.Fd()), unix.LOCK_UN)
	if code, _, stderr := run(cli.Create, append(args, "--apply", hash)...); code != 0 {
		t.Fatalf("apply after the lock was released: %s", stderr)
	}
}
