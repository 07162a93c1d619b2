package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
)

// The shape bounds of a policy file hold at max and refuse at max+1, and
// the refusal names the bound.
func TestConfigBoundsAtMaxAndOver(t *testing.T) {
	list := func(n int, f func(i int) string) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	table := func(n int, f func(i int) (string, any)) map[string]any {
		out := map[string]any{}
		for i := 0; i < n; i++ {
			k, v := f(i)
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name    string
		max     int
		overlay func(n int) map[string]any
	}{
		{"exclude", limits.MaxConfigExclude, func(n int) map[string]any {
			return map[string]any{"exclude": list(n, func(i int) string { return fmt.Sprintf("skip%d", i) })}
		}},
		{"base.derive", limits.MaxConfigDerive, func(n int) map[string]any {
			return map[string]any{"base": map[string]any{"derive": list(n, func(int) string { return "title" })}}
		}},
		{"base.optional", limits.MaxConfigFields, func(n int) map[string]any {
			return map[string]any{"base": map[string]any{"optional": table(n, func(i int) (string, any) { return fmt.Sprintf("f%d", i), "string" })}}
		}},
		{"types", limits.MaxConfigTypes, func(n int) map[string]any {
			return map[string]any{"types": table(n, func(i int) (string, any) { return fmt.Sprintf("t%d", i), map[string]any{} })}
		}},
		{"types.folder", limits.MaxTypeFolders, func(n int) map[string]any {
			return map[string]any{"types": map[string]any{"runbook": map[string]any{
				"folder": list(n, func(i int) string { return fmt.Sprintf("runbooks%d", i) })}}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := policy.Compose([]map[string]any{thinRaw(t), c.overlay(c.max)}, true); err != nil {
				t.Fatalf("at %d: refused: %v", c.max, err)
			}
			_, _, err := policy.Compose([]map[string]any{thinRaw(t), c.overlay(c.max + 1)}, true)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprint(c.max)) {
				t.Fatalf("%d: %v, want a refusal naming %d", c.max+1, err, c.max)
			}
		})
	}
}

// RunGit takes MaxGitOutputBytes of output and refuses one byte more.
func TestGitOutputAtMaxAndOver(t *testing.T) {
	root := t.TempDir()
	testws.Git(t, root, "init", "-q")
	for _, n := range []int{limits.MaxGitOutputBytes, limits.MaxGitOutputBytes + 1} {
		name := fmt.Sprintf("blob%d", n)
		testws.Write(t, root, name, strings.Repeat("x", n))
		id := strings.TrimSpace(testws.Git(t, root, "hash-object", "-w", name))
		out, code, err := policy.RunGit(context.Background(), root, nil, "cat-file", "blob", id)
		switch {
		case n <= limits.MaxGitOutputBytes && (err != nil || code != 0 || len(out) != n):
			t.Errorf("%d bytes: %d bytes, exit %d, %v", n, len(out), code, err)
		case n > limits.MaxGitOutputBytes && err == nil:
			t.Errorf("%d bytes: accepted (%d bytes, exit %d)", n, len(out), code)
		}
	}
}
