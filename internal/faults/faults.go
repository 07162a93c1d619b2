// Package faults lets a test stop a create-vivary process at a chosen step
// of a write, so crash safety is proved on a process that really ends
// there. It is compiled into create-vivary only under the vivary_faults
// build tag (and into test binaries that call Install); shipped binaries
// never contain it.
package faults

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/vivary-dev/vivary-go/workspace/write"
)

// The environment names a fault as <step>#<n>, the nth occurrence of a
// write.Step ("rename#1"):
const (
	// Env: the process writes "<step> <path>\n" to file descriptor 3, a pipe
	// the test holds, and waits there for the test's SIGKILL. The line is
	// the event the test waits for, so no test sleeps to synchronise.
	Env = "VIVARY_FAULT"
	// ExitEnv: the process exits with status 137 at once, running no
	// deferred cleanup, as if killed there (for testscript stories).
	ExitEnv = "VIVARY_FAULT_EXIT"
)

// Install arms write.Hook from the environment, if it names a fault.
func Install() {
	if spec := os.Getenv(Env); spec != "" {
		arm(spec, func(s write.Step, rel string) {
			signal := os.NewFile(3, "fault")
			fmt.Fprintf(signal, "%s %s\n", s, rel)
			signal.Close()
			for {
				time.Sleep(time.Hour)
			}
		})
	} else if spec := os.Getenv(ExitEnv); spec != "" {
		arm(spec, func(write.Step, string) { os.Exit(137) })
	}
}

func arm(spec string, stop func(write.Step, string)) {
	step, nth, ok := strings.Cut(spec, "#")
	n, err := strconv.Atoi(nth)
	if !ok || err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "a fault must be <step>#<n>")
		os.Exit(3)
	}
	seen := 0
	write.Hook = func(s write.Step, rel string) error {
		if string(s) == step {
			if seen++; seen == n {
				stop(s, rel)
			}
		}
		return nil
	}
}
