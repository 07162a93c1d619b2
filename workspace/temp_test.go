package workspace_test

import (
	"testing"

	"github.com/vivary-dev/vivary-go/workspace"
)

// A temp file's name says whose it is; no other name is taken for one.
func TestTempNames(t *testing.T) {
	for _, tag := range []string{"init", "adopt", "record"} {
		for _, n := range []uint32{0, 7, 1<<32 - 1} {
			got, ok := workspace.TempTag(workspace.TempName(tag, n))
			if !ok || got != tag {
				t.Errorf("TempTag(TempName(%q, %d)) = %q, %v", tag, n, got, ok)
			}
		}
	}
	for _, name := range []string{".record-1.vivary-tmp.md", "record-1.vivary-tmp", ".Record-1.vivary-tmp", ".record-.vivary-tmp", ".record-x.vivary-tmp", ".re/cord-1.vivary-tmp", "notes.md"} {
		if tag, ok := workspace.TempTag(name); ok {
			t.Errorf("TempTag(%q) = %q: taken for a temp file", name, tag)
		}
	}
}
