package policy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/policy"
)

// The environment git sees is fixed: nothing inherited reaches it.
func TestRunGitEnvironmentIsFixed(t *testing.T) {
	t.Setenv("GIT_DIR", "/nonexistent")
	t.Setenv("VIVARY_SECRET", "hunter2")
	out, code, err := policy.RunGit(context.Background(), t.TempDir(), nil, "-c", "alias.env=!env", "env")
	if err != nil || code != 0 {
		t.Fatalf("%v %d", err, code)
	}
	if strings.Contains(string(out), "GIT_DIR=/nonexistent") || strings.Contains(string(out), "hunter2") {
		t.Fatalf("inherited environment reached git:\n%s", out)
	}
}
