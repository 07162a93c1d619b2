package write

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vivary-dev/vivary-go/workspace"
)

func bind(t *testing.T, root string) *Root {
	t.Helper()
	ws, err := workspace.Bind(root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(ws, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); ws.Close() })
	return r
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// names lists a folder, so a test sees any temp file left behind.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// primitives runs f with the native renames and with the portable fallbacks.
func primitives(t *testing.T, f func(t *testing.T)) {
	t.Run("native", f)
	t.Run("fallback", func(t *testing.T) {
		defer func(r, x func(int, string, string) error) { renameAt, exchangeAt = r, x }(renameAt, exchangeAt)
		renameAt = portableRename
		exchangeAt = func(int, string, string) error { return errNoExchange }
		f(t)
	})
}

func TestCreateReplaceRemove(t *testing.T) {
	primitives(t, func(t *testing.T) {
		root := t.TempDir()
		r := bind(t, root)
		d, made, err := r.MkdirAll("a/b")
		if err != nil || !slices.Equal(made, []string{"a", "a/b"}) {
			t.Fatalf("MkdirAll = %v, %v", made, err)
		}
		p := filepath.Join(root, "a/b/f.md")
		info, err := d.Create("f.md", []byte("one\n"))
		if err != nil || read(t, p) != "one\n" {
			t.Fatalf("Create: %v", err)
		}
		if err := r.Verify("a/b/f.md", info); err != nil {
			t.Fatalf("Verify of the file just written: %v", err)
		}
		if _, err := d.Create("f.md", []byte("two\n")); !errors.Is(err, ErrExists) || read(t, p) != "one\n" {
			t.Fatalf("Create over an existing file = %v, file %q", err, read(t, p))
		}

		// Replace keeps the old file's permissions and checks its bytes.
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Replace("f.md", []byte("three\n"), 1<<10, func(old []byte) bool { return string(old) == "nope" }); !errors.Is(err, ErrChanged) || read(t, p) != "one\n" {
			t.Fatalf("Replace with unexpected old bytes = %v, file %q", err, read(t, p))
		}
		info, err = d.Replace("f.md", []byte("three\n"), 1<<10, func(old []byte) bool { return string(old) == "one\n" })
		if err != nil || read(t, p) != "three\n" {
			t.Fatalf("Replace: %v, file %q", err, read(t, p))
		}
		if st, _ := os.Stat(p); keepsPermissions && st.Mode().Perm() != 0o600 {
			t.Errorf("Replace changed the permissions to %v", st.Mode().Perm())
		}
		if err := r.Verify("a/b/f.md", info); err != nil {
			t.Fatal(err)
		}
		if got := names(t, filepath.Join(root, "a/b")); !slices.Equal(got, []string{"f.md"}) {
			t.Fatalf("folder holds %v, want only f.md", got)
		}

		// Remove refuses another file under the name, removes its own.
		other, _ := d.Stat("f.md")
		other.Ino++
		if err := d.Remove("f.md", other); !errors.Is(err, ErrChanged) {
			t.Fatalf("Remove of another file = %v", err)
		}
		if err := d.Remove("f.md", info); err != nil {
			t.Fatal(err)
		}
		if err := r.RemoveMade(made); err != nil {
			t.Fatal(err)
		}
		if got := names(t, root); len(got) != 0 {
			t.Fatalf("root holds %v after removing everything made", got)
		}
	})
}

// A file that is a link, a second hard link or a folder is never replaced.
func TestReplaceRefusesOddFiles(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "target.md")
	os.WriteFile(outside, []byte("outside\n"), 0o644)
	os.Symlink(outside, filepath.Join(root, "link.md"))
	os.WriteFile(filepath.Join(root, "hard.md"), []byte("hard\n"), 0o644)
	os.Link(filepath.Join(root, "hard.md"), filepath.Join(root, "hard2.md"))
	os.Mkdir(filepath.Join(root, "dir.md"), 0o755)
	r := bind(t, root)
	d, _ := r.Dir("")
	for _, name := range []string{"link.md", "hard.md", "dir.md", "missing.md"} {
		if _, err := d.Replace(name, []byte("x"), 1<<10, func([]byte) bool { return true }); !errors.Is(err, ErrChanged) {
			t.Errorf("Replace(%s) = %v, want ErrChanged", name, err)
		}
	}
	if read(t, outside) != "outside\n" || read(t, filepath.Join(root, "hard2.md")) != "hard\n" {
		t.Fatal("a refused Replace changed a file")
	}
}

func TestLinkOnTheWayIsRefused(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	r := bind(t, root)
	if _, _, err := r.MkdirAll("a/b"); !errors.Is(err, ErrLink) {
		t.Fatalf("MkdirAll through a link = %v, want ErrLink", err)
	}
	if _, err := r.Dir("a"); !errors.Is(err, ErrLink) {
		t.Fatalf("Dir of a link = %v, want ErrLink", err)
	}
	if got := names(t, outside); len(got) != 0 {
		t.Fatalf("outside holds %v", got)
	}
}

// At every step of a create, a replace and their undo, the folder "a" is
// swapped for a link to another folder. Nothing may land in that folder,
// the transaction must fail (at the step, or at Verify), and undoing it
// through the held handles must leave no file behind.
func TestSwapAtEveryStep(t *testing.T) {
	defer func() { Hook = nil }()
	for _, action := range []string{"create", "replace"} {
		for _, step := range []Step{StepMkdir, StepCreate, StepWrite, StepSync, StepRename, StepUnlink, StepRmdir} {
			t.Run(action+"/"+string(step), func(t *testing.T) {
				root, outside := t.TempDir(), t.TempDir()
				if action == "replace" {
					os.MkdirAll(filepath.Join(root, "a/b"), 0o755)
					os.WriteFile(filepath.Join(root, "a/b/f.md"), []byte("before\n"), 0o644)
				}
				swapped := false
				Hook = func(s Step, rel string) error {
					if s != step || swapped {
						return nil
					}
					swapped = true
					if err := os.Rename(filepath.Join(root, "a"), filepath.Join(root, "a.away")); err != nil {
						return err
					}
					return os.Symlink(outside, filepath.Join(root, "a"))
				}
				r := bind(t, root)
				var info workspace.Info
				d, made, err := r.MkdirAll("a/b")
				if err == nil {
					if action == "create" {
						info, err = d.Create("f.md", []byte("new\n"))
					} else {
						info, err = d.Replace("f.md", []byte("new\n"), 1<<10, func(old []byte) bool { return string(old) == "before\n" })
					}
				}
				placed := err == nil
				if placed {
					err = r.Verify("a/b/f.md", info)
				}
				forward := map[string][]Step{"create": {StepMkdir, StepCreate, StepWrite, StepSync, StepRename},
					"replace": {StepCreate, StepWrite, StepSync, StepRename, StepUnlink}}
				if !swapsOldOut {
					forward["replace"] = forward["replace"][:4]
				}
				if slices.Contains(forward[action], step) && !swapped {
					t.Fatalf("the %s never reached step %s", action, step)
				}
				if err == nil && swapped {
					t.Fatal("the write succeeded although its folder was swapped for a link")
				}
				if placed {
					// Undo through the held handles, as a rollback does.
					if action == "create" {
						if rerr := d.Remove("f.md", info); rerr != nil {
							t.Fatalf("undo: %v", rerr)
						}
						r.RemoveMade(made)
					} else {
						if _, rerr := d.Replace("f.md", []byte("before\n"), 1<<10, func(old []byte) bool { return string(old) == "new\n" }); rerr != nil {
							t.Fatalf("undo: %v", rerr)
						}
					}
				}
				if got := names(t, outside); len(got) != 0 {
					t.Fatalf("a byte landed outside the workspace: %v", got)
				}
				away := filepath.Join(root, "a.away", "b")
				if !swapped {
					away = filepath.Join(root, "a", "b")
				}
				if action == "replace" {
					if got := read(t, filepath.Join(away, "f.md")); got != "before\n" {
						t.Fatalf("the original file holds %q after the undo", got)
					}
				}
				if es, err := os.ReadDir(away); err == nil {
					for _, e := range es {
						if e.Name() != "f.md" || action != "replace" {
							t.Errorf("left behind: %s", e.Name())
						}
					}
				}
			})
		}
	}
}

func TestSweepRemovesOnlyItsOwnTemps(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{".test-123.vivary-tmp", ".test-9.vivary-tmp", ".record-1.vivary-tmp", ".test-x.vivary-tmp", "test-1.vivary-tmp", "note.md"} {
		os.WriteFile(filepath.Join(root, n), []byte("x"), 0o644)
	}
	os.Mkdir(filepath.Join(root, ".test-7.vivary-tmp"), 0o755)
	r := bind(t, root)
	d, _ := r.Dir("")
	removed, err := d.Sweep()
	slices.Sort(removed)
	if err != nil || !slices.Equal(removed, []string{".test-123.vivary-tmp", ".test-9.vivary-tmp"}) {
		t.Fatalf("Sweep = %v, %v", removed, err)
	}
	got := names(t, root)
	slices.Sort(got)
	if want := []string{".record-1.vivary-tmp", ".test-7.vivary-tmp", ".test-x.vivary-tmp", "note.md", "test-1.vivary-tmp"}; !slices.Equal(got, want) {
		t.Fatalf("left %v, want %v", got, want)
	}
}

func TestLockExcludesASecondWriter(t *testing.T) {
	root := t.TempDir()
	a, b := bind(t, root), bind(t, root)
	if err := a.Lock(); err != nil {
		t.Fatal(err)
	}
	if err := b.Lock(); !errors.Is(err, ErrBusy) {
		t.Fatalf("second Lock = %v, want ErrBusy", err)
	}
	a.Close()
	if err := b.Lock(); err != nil {
		t.Fatalf("Lock after the holder closed: %v", err)
	}
}

func TestTempNames(t *testing.T) {
	root := t.TempDir()
	r := bind(t, root)
	d, _ := r.Dir("")
	var seen []string
	Hook = func(s Step, rel string) error {
		if s == StepCreate {
			seen = append(seen, rel)
		}
		return nil
	}
	defer func() { Hook = nil }()
	if _, err := d.Create("x.md", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 {
		t.Fatalf("temps %v", seen)
	}
	if tag, ok := workspace.TempTag(seen[0]); !ok || tag != "test" {
		t.Fatalf("temp name %q is not .test-<n>.vivary-tmp", seen[0])
	}
	if !bytes.Equal([]byte(read(t, filepath.Join(root, "x.md"))), []byte("x")) {
		t.Fatal("content")
	}
}

// A fault at any step of a Create or Replace leaves the folder as it was:
// no temp file, the original bytes.
func TestAFaultLeavesNoTemp(t *testing.T) {
	defer func() { Hook = nil }()
	for _, action := range []string{"create", "replace"} {
		for _, step := range []Step{StepCreate, StepWrite, StepSync, StepRename, StepUnlink} {
			if step == StepUnlink && (action == "create" || !swapsOldOut) {
				continue
			}
			t.Run(action+"/"+string(step), func(t *testing.T) {
				root := t.TempDir()
				os.WriteFile(filepath.Join(root, "old.md"), []byte("old\n"), 0o644)
				r := bind(t, root)
				d, _ := r.Dir("")
				hit := false
				Hook = func(s Step, rel string) error {
					if s == step {
						hit = true
						return errors.New("injected")
					}
					return nil
				}
				var err error
				if action == "create" {
					_, err = d.Create("new.md", []byte("new\n"))
				} else {
					_, err = d.Replace("old.md", []byte("new\n"), 1<<10, func(old []byte) bool { return string(old) == "old\n" })
				}
				Hook = nil
				if !hit || err == nil {
					t.Fatalf("the fault at %s did not fail the %s: %v", step, action, err)
				}
				if got := names(t, root); !slices.Equal(got, []string{"old.md"}) {
					t.Fatalf("left %v", got)
				}
				if action == "replace" && read(t, filepath.Join(root, "old.md")) != "old\n" {
					t.Fatal("the original bytes changed")
				}
			})
		}
	}
}
