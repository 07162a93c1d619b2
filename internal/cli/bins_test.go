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

// The programs the tests run as processes. vivary and create-vivary are this
// test binary under those names (testscript puts the copies on PATH; they run
// cli.Vivary and cli.Create exactly as cmd/vivary and cmd/create-vivary do,
// with the crash-test faults installed by TestMain), so only vivary-mcp is
// built: the real one and one against another SDK version, each alone in its
// own folder (a script puts one folder on PATH), at most once per test run,
// into a temp folder TestMain removes afterwards.
var bin struct {
	vivary, createVivary string
	dir                  string
	mcpOnce              sync.Once
	mcp, oldMCP          string
	mcpErr               error
}

// building runs the tests with bin set up; testscript calls it only in the
// test process itself, never when it re-runs this binary as one of the
// script commands.
type building struct{ m *testing.M }

func (b building) Run() int {
	var err error
	for name, p := range map[string]*string{"vivary": &bin.vivary, "create-vivary": &bin.createVivary} {
		if *p, err = exec.LookPath(name); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if bin.dir, err = os.MkdirTemp("", "vivary-cli-bins-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(bin.dir)
	return b.m.Run()
}

// mcpBinaries builds both vivary-mcp binaries together the first time a
// test needs them (linking them is most of this package's build cost, so a
// run of the other tests alone skips it).
func mcpBinaries(t *testing.T) (current, old string) {
	bin.mcpOnce.Do(func() {
		root, _ := filepath.Abs("../..")
		bin.mcp = filepath.Join(bin.dir, "current", "vivary-mcp")
		bin.oldMCP = filepath.Join(bin.dir, "old", "vivary-mcp")
		builds := []struct {
			dir  string
			args []string
			env  []string
		}{
			{root, []string{"-o", bin.mcp, "./mcp/cmd/vivary-mcp"}, nil},
			// Built against another SDK version, for doctor's probe.
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
		bin.mcpErr = errors.Join(errs...)
	})
	if bin.mcpErr != nil {
		t.Fatal(bin.mcpErr)
	}
	return bin.mcp, bin.oldMCP
}
