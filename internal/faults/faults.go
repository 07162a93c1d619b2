// Package faults lets a test stop a real create-vivary process at a chosen
// step of a write and kill it there, so crash safety is proved with a real
// SIGKILL rather than a simulated one. It is compiled into create-vivary only
// under the vivary_faults build tag; shipped binaries never contain it.
package faults

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/vivary-dev/vivary-go/workspace/write"
)

// Env names the fault: VIVARY_FAULT=<step>#<n>, for the nth occurrence of a
// write.Step ("rename#1").
const Env = "VIVARY_FAULT"

// Install arms write.Hook from the environment. At the chosen step the
// process writes "<step> <path>\n" to file descriptor 3, a pipe the test
// holds, and then waits to be killed: the line is the event the test waits
// for, so no test ever sleeps to synchronise with it.
func Install() {
	spec := os.Getenv(Env)
	if spec == "" {
		return
	}
	step, nth, ok := strings.Cut(spec, "#")
	n, err := strconv.Atoi(nth)
	if !ok || err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "%s must be <step>#<n>\n", Env)
		os.Exit(3)
	}
	seen := 0
	write.Hook = func(s write.Step, rel string) error {
		if string(s) != step {
			return nil
		}
		if seen++; seen != n {
			return nil
		}
		signal := os.NewFile(3, "fault")
		fmt.Fprintf(signal, "%s %s\n", s, rel)
		signal.Close()
		for {
			time.Sleep(time.Hour)
		}
	}
}
