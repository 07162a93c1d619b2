//go:build unix

package policy

import (
	"os/exec"
	"syscall"
)

// gitPath is the fixed search path git runs with; the user's PATH is not inherited.
const gitPath = "/usr/local/bin:/usr/bin:/bin"

// gitExe is git's file name on gitPath.
const gitExe = "git"

// osGitEnv is what git needs from the environment on this system besides gitEnv.
func osGitEnv() []string { return nil }

// runTree runs cmd in its own process group and kills the whole group when
// cmd's context ends, so nothing git started outlives the call.
func runTree(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		return nil
	}
	return cmd.Run()
}
