//go:build unix

package adapter_test

import (
	"os/exec"
	"syscall"
	"testing"
)

// startAs is start, as nobody when VIVARY_TEST_AS_NOBODY is in env.
func startAs(t *testing.T, env []string, roots ...string) *server {
	t.Helper()
	for _, e := range env {
		if e == "VIVARY_TEST_AS_NOBODY=1" {
			return start(t, opts{env: env, prepare: func(cmd *exec.Cmd) {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
				cmd.Env = append(cmd.Env, "HOME=/nonexistent")
			}}, roots...)
		}
	}
	return start(t, opts{env: env}, roots...)
}
