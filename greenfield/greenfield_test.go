package greenfield_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/greenfield"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/workspace/write"
)

var coding = greenfield.Options{Preset: scaffold.DefaultPreset}

// steps counts the write steps one init makes, by kind.
func steps(t *testing.T, target string, opt greenfield.Options) map[write.Step]int {
	t.Helper()
	n := map[write.Step]int{}
	write.Hook = func(s write.Step, rel string) error { n[s]++; return nil }
	defer func() { write.Hook = nil }()
	if _, err := greenfield.Init(context.Background(), target, opt); err != nil {
		t.Fatal(err)
	}
	return n
}

// A failure at any step of init, into a new target below missing folders,
// removes everything init made: the tree is as it was before.
func TestAFailedInitLeavesNothing(t *testing.T) {
	opt := greenfield.Options{Preset: scaffold.DefaultPreset, Adapters: []string{"agents"}}
	counts := steps(t, filepath.Join(t.TempDir(), "a", "b", "ws"), opt)
	for _, step := range []write.Step{write.StepMkdir, write.StepCreate, write.StepWrite, write.StepSync, write.StepRename} {
		for nth := 1; nth <= counts[step]; nth++ {
			t.Run(fmt.Sprintf("%s#%d", step, nth), func(t *testing.T) {
				base := t.TempDir()
				before := testws.Hash(t, base)
				seen := 0
				write.Hook = func(s write.Step, rel string) error {
					if s == step {
						if seen++; seen == nth {
							return errors.New("injected fault")
						}
					}
					return nil
				}
				defer func() { write.Hook = nil }()
				_, err := greenfield.Init(context.Background(), filepath.Join(base, "a", "b", "ws"), opt)
				if err == nil || !strings.Contains(err.Error(), "injected fault") {
					t.Fatalf("Init = %v, want the injected fault", err)
				}
				if testws.Hash(t, base) != before {
					t.Fatal("a failed init left something behind")
				}
			})
		}
	}
}

// A process killed at any step of init leaves a partial scaffold (and maybe
// a temp file); init run again finishes it, and Doctor is healthy.
func TestInitFinishesAfterAKill(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "ws")
	counts := steps(t, fresh, coding)
	clean := testws.Hash(t, fresh)
	type killed struct{}
	for _, step := range []write.Step{write.StepCreate, write.StepWrite, write.StepSync, write.StepRename} {
		for nth := 1; nth <= counts[step]; nth++ {
			t.Run(fmt.Sprintf("%s#%d", step, nth), func(t *testing.T) {
				target := filepath.Join(t.TempDir(), "ws")
				seen := 0
				write.Hook = func(s write.Step, rel string) error {
					if s == step {
						if seen++; seen == nth {
							panic(killed{}) // stops dead: no rollback runs
						}
					}
					return nil
				}
				func() {
					defer func() {
						if r := recover(); r != (killed{}) {
							panic(r)
						}
					}()
					greenfield.Init(context.Background(), target, coding)
					t.Fatal("Init was not stopped")
				}()
				write.Hook = nil
				res, err := greenfield.Init(context.Background(), target, coding)
				if err != nil || res.Doctor == nil || !res.Doctor.OK {
					t.Fatalf("Init after the kill: %v", err)
				}
				if testws.Hash(t, target) != clean {
					t.Fatal("the finished init differs from a clean one")
				}
			})
		}
	}
}

// At each step, .vivary is swapped for a link to a folder outside. Nothing
// may land there, init must refuse, and what it wrote is removed again.
func TestInitNeverWritesThroughASwappedFolder(t *testing.T) {
	for _, step := range []write.Step{write.StepCreate, write.StepWrite, write.StepSync, write.StepRename} {
		t.Run(string(step), func(t *testing.T) {
			base := t.TempDir()
			target, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
			os.Mkdir(target, 0o755)
			os.Mkdir(outside, 0o755)
			swapped := false
			write.Hook = func(s write.Step, rel string) error {
				if s != step || swapped || !strings.HasPrefix(rel, ".vivary/") {
					return nil
				}
				swapped = true
				if err := os.Rename(filepath.Join(target, ".vivary"), filepath.Join(base, "away")); err != nil {
					return err
				}
				return os.Symlink(outside, filepath.Join(target, ".vivary"))
			}
			defer func() { write.Hook = nil }()
			_, err := greenfield.Init(context.Background(), target, coding)
			if err == nil {
				t.Fatal("init succeeded")
			}
			if !swapped {
				t.Fatalf("init never reached %s: %v", step, err)
			}
			if es, _ := os.ReadDir(outside); len(es) != 0 {
				t.Fatalf("init wrote outside: %v", es)
			}
			if es, _ := os.ReadDir(filepath.Join(base, "away")); len(es) != 0 {
				t.Fatalf("init left files in the moved folder: %v", es)
			}
			for _, f := range []string{".gitignore", "AGENTS.md", "STATE.md"} {
				if _, err := os.Lstat(filepath.Join(target, f)); err == nil {
					t.Errorf("init left %s", f)
				}
			}
		})
	}
}
