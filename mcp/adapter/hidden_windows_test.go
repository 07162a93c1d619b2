package adapter_test

import "testing"

// startAs is start: Windows has no nobody to run the server as.
func startAs(t *testing.T, env []string, roots ...string) *server {
	t.Helper()
	return start(t, opts{env: env}, roots...)
}
