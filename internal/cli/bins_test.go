package cli_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The real programs the tests run, each alone in its own folder (a script
// puts one folder on PATH), built once per test run by TestMain, together,
// into one temp folder it removes afterwards.
var bin struct {
	vivary, faults, mcp, oldMCP string
}

// building runs the tests after building the binaries; testscript calls it
// only in the test process itself, never when it re-runs this binary as
// one of the script commands.
type building struct{ m *testing.M }

func (b building) Run() int {
	dir, err := os.MkdirTemp("", "vivary-cli-bins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	root, _ := filepath.Abs("../..")
	bin.vivary = filepath.Join(dir, "vivary", "vivary")
	bin.faults = filepath.Join(dir, "faults", "create-vivary")
	bin.mcp = filepath.Join(dir, "current", "vivary-mcp")
	bin.oldMCP = filepath.Join(dir, "old", "vivary-mcp")
	builds := []struct {
		dir  string
		args []string
		env  []string
	}{
		{root, []string{"-o", bin.vivary, "./cmd/vivary"}, nil},
		// create-vivary with the vivary_faults tag: VIVARY_FAULT stops it
		// at a chosen write step.
		{root, []string{"-tags", "vivary_faults", "-o", bin.faults, "./cmd/create-vivary"}, nil},
		{root, []string{"-o", bin.mcp, "./mcp/cmd/vivary-mcp"}, nil},
		// vivary-mcp built against another SDK version, for doctor's probe.
		{filepath.Join(root, "internal/cli/testdata/oldsdk"), []string{"-o", bin.oldMCP, "./cmd/vivary-mcp"}, []string{"GOWORK=off"}},
	}
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i, b := range builds {
		wg.Go(func() {
			cmd := exec.Command("go", append([]string{"build"}, b.args...)...)
			cmd.Dir, cmd.Env = b.dir, append(os.Environ(), b.env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("go build %v: %v\n%s", b.args, err, out)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return b.m.Run()
}
