package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

func mk(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "ws")
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "a.md"), []byte("hello"), 0o644)
	return root
}

func TestBindRefusals(t *testing.T) {
	root := mk(t)
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(root, link)
	for name, p := range map[string]string{
		"missing": filepath.Join(root, "nope"), "file": filepath.Join(root, "a.md"), "link": link, "empty": " ",
	} {
		_, err := workspace.Bind(p)
		if reason.Of(err) != reason.WorkspaceUnavailable {
			t.Errorf("%s: %v", name, err)
		}
		if err != nil && strings.Contains(err.Error(), root) {
			t.Errorf("%s: error names the path: %v", name, err)
		}
	}
}

func TestBindNormalizes(t *testing.T) {
	root := mk(t)
	ws, err := workspace.Bind(filepath.Join(root, "sub", "..") + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	real, _ := filepath.EvalSymlinks(root)
	if ws.Root() != real {
		t.Fatalf("root %q, want %q", ws.Root(), real)
	}
}

func TestAnchor(t *testing.T) {
	cases := map[string]func(t *testing.T, root string){
		"rename and replace": func(t *testing.T, root string) {
			if err := os.Rename(root, root+".old"); err != nil {
				t.Fatal(err)
			}
			os.Mkdir(root, 0o755)
		},
		"replaced by link": func(t *testing.T, root string) {
			os.Rename(root, root+".old")
			os.Symlink(root+".old", root)
		},
		"deleted": func(t *testing.T, root string) { os.RemoveAll(root) },
		"rmdir and mkdir": func(t *testing.T, root string) {
			os.RemoveAll(root)
			os.Mkdir(root, 0o755)
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			root := mk(t)
			ws, err := workspace.Bind(root)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			if err := ws.Check(); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(root, "b.md"), []byte("ordinary write"), 0o644)
			if err := ws.Check(); err != nil {
				t.Fatalf("an ordinary write broke the anchor: %v", err)
			}
			mutate(t, root)
			if reason.Of(ws.Check()) != reason.WorkspaceUnavailable {
				t.Fatal("replacement not detected")
			}
		})
	}
	t.Run("closed", func(t *testing.T) {
		ws, _ := workspace.Bind(mk(t))
		ws.Close()
		ws.Close()
		if ws.Check() == nil {
			t.Fatal("closed workspace passed Check")
		}
	})
}

type readVia struct {
	name string
	read func(rel string, max int64, want *workspace.Info) ([]byte, workspace.Info, error)
}

// readers are the ways to read a workspace file: the workspace's own
// (every folder opened from the root), a batch reader's (folders held,
// each opened beneath its parent), and a fresh batch reader per read.
func readers(t *testing.T, ws *workspace.Workspace) []readVia {
	held := ws.NewReader()
	t.Cleanup(held.Close)
	return []readVia{
		{"workspace", ws.ReadFile},
		{"reader", held.ReadFile},
		{"fresh reader", func(rel string, max int64, want *workspace.Info) ([]byte, workspace.Info, error) {
			r := ws.NewReader()
			defer r.Close()
			return r.ReadFile(rel, max, want)
		}},
	}
}

func TestReadFileDetectsChange(t *testing.T) {
	root := mk(t)
	ws, _ := workspace.Bind(root)
	defer ws.Close()
	info, _ := ws.Lstat("a.md")
	os.WriteFile(filepath.Join(root, "a.md"), []byte("HELLO"), 0o644)
	if _, _, err := ws.ReadFile("a.md", 100, &info); !errors.Is(err, workspace.ErrChanged) {
		t.Fatalf("same-size rewrite: %v", err)
	}
}

// A link swapped in and out of a directory component while reads run must
// never serve the file behind the link. The race runs for a count of rounds
// on both sides, however slow the machine.
func TestLinkSwapRace(t *testing.T) {
	root := mk(t)
	secret := filepath.Join(t.TempDir(), "secret")
	os.MkdirAll(secret, 0o755)
	os.WriteFile(filepath.Join(secret, "n.md"), []byte("SECRET"), 0o644)
	os.WriteFile(filepath.Join(root, "sub", "n.md"), []byte("public"), 0o644)
	ws, _ := workspace.Bind(root)
	defer ws.Close()
	for _, via := range readers(t, ws) {
		t.Run(via.name, func(t *testing.T) { linkSwapRace(t, root, secret, via.read) })
	}
}

func linkSwapRace(t *testing.T, root, secret string, read func(string, int64, *workspace.Info) ([]byte, workspace.Info, error)) {
	const rounds = 500
	var stop atomic.Bool
	var swaps atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		real, swap := filepath.Join(root, "sub"), filepath.Join(root, "sub.real")
		for !stop.Load() {
			os.Rename(real, swap)
			os.Symlink(secret, real)
			os.Remove(real)
			os.Rename(swap, real)
			swaps.Add(1)
		}
	}()
	for reads := 1; reads <= rounds || swaps.Load() < rounds; reads++ {
		if b, _, err := read("sub/n.md", 100, nil); err == nil && string(b) == "SECRET" {
			stop.Store(true)
			<-done
			t.Fatalf("read %d followed a swapped-in link", reads)
		}
	}
	stop.Store(true)
	<-done
	// The race proved something only if the file is readable once it ends.
	if b, _, err := read("sub/n.md", 100, nil); err != nil || string(b) != "public" {
		t.Fatalf("after the race: %q %v", b, err)
	}
}

// Listing the root twice must list it whole twice (a dup'd handle would
// share the directory offset and list nothing the second time).
func TestReadDirTwice(t *testing.T) {
	ws, _ := workspace.Bind(mk(t))
	defer ws.Close()
	for i := 0; i < 3; i++ {
		for _, dir := range []string{"", "sub"} {
			es, err := ws.ReadDir(dir)
			if err != nil || (dir == "" && len(es) != 2) {
				t.Fatalf("pass %d %q: %d entries, %v", i, dir, len(es), err)
			}
		}
	}
}

// A batch reader lists, stats and reads exactly what the workspace does,
// over more folders than it may hold open at once.
func TestReaderAgreesWithWorkspace(t *testing.T) {
	// More folders than a Reader holds, so some are closed and reopened.
	workspace.HoldAtMost(t, 64)
	root := mk(t)
	var dirs []string
	for i := 0; i < 100; i++ {
		d := filepath.Join("sub", "d"+strconv.Itoa(i))
		if i%2 == 1 {
			d = filepath.Join(dirs[i-1], "e") // some deeper
		}
		dirs = append(dirs, d)
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(root, d, "n.md"), []byte(d), 0o644)
	}
	os.Symlink("sub", filepath.Join(root, "link"))
	ws, _ := workspace.Bind(root)
	defer ws.Close()
	r := ws.NewReader()
	defer r.Close()
	for pass := 0; pass < 2; pass++ { // the second pass over held (or reopened) handles
		for _, d := range append([]string{"", "sub", "link", "missing", "a.md"}, dirs...) {
			d = filepath.ToSlash(d)
			want, werr := ws.ReadDir(d)
			got, gerr := r.ListDir(d, nil)
			if (werr == nil) != (gerr == nil) || !sameInfos(want, got) {
				t.Fatalf("ListDir(%q) = %d entries, %v; the workspace lists %d, %v", d, len(got), gerr, len(want), werr)
			}
			for _, rel := range []string{d + "/n.md", d + "/missing.md", d} {
				wi, werr := ws.Lstat(rel)
				gi, gerr := r.Lstat(rel)
				if (werr == nil) != (gerr == nil) || !workspace.Same(wi, gi) {
					t.Fatalf("Lstat(%q) = %+v, %v; the workspace says %+v, %v", rel, gi, gerr, wi, werr)
				}
				wb, _, werr := ws.ReadFile(rel, 100, nil)
				gb, _, gerr := r.ReadFile(rel, 100, nil)
				if (werr == nil) != (gerr == nil) || string(wb) != string(gb) {
					t.Fatalf("ReadFile(%q) = %q, %v; the workspace reads %q, %v", rel, gb, gerr, wb, werr)
				}
			}
		}
	}
}

func sameInfos(a, b []workspace.Info) bool {
	if len(a) != len(b) {
		return false
	}
	sort.Slice(a, func(i, j int) bool { return a[i].Name < a[j].Name })
	sort.Slice(b, func(i, j int) bool { return b[i].Name < b[j].Name })
	for i := range a {
		if a[i].Name != b[i].Name || !workspace.Same(a[i], b[i]) {
			return false
		}
	}
	return true
}
