//go:build unix

package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/workspace"
)

func TestReadFileRefusesSpecialFiles(t *testing.T) {
	root := mk(t)
	outside := filepath.Join(t.TempDir(), "outside.md")
	os.WriteFile(outside, []byte("outside"), 0o644)
	os.Link(outside, filepath.Join(root, "hard.md"))
	os.Symlink("a.md", filepath.Join(root, "link.md"))
	os.Symlink(filepath.Dir(outside), filepath.Join(root, "dirlink"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, _ := workspace.Bind(root)
	defer ws.Close()
	for _, via := range readers(t, ws) {
		t.Run(via.name, func(t *testing.T) {
			read := via.read
			done := make(chan struct{})
			go func() {
				defer close(done)
				if _, _, err := read("fifo.md", 100, nil); !errors.Is(err, workspace.ErrNotRegular) {
					t.Errorf("fifo: %v", err)
				}
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second): // only a read that waits for a writer gets here, however busy the machine
				t.Fatal("reading a FIFO blocked")
			}
			if _, _, err := read("hard.md", 100, nil); !errors.Is(err, workspace.ErrNotRegular) {
				t.Errorf("hardlink: %v", err)
			}
			if _, _, err := read("link.md", 100, nil); !errors.Is(err, workspace.ErrLink) {
				t.Errorf("symlink: %v", err)
			}
			for _, rel := range []string{"dirlink/outside.md", "a.md/x.md"} {
				if _, _, err := read(rel, 100, nil); !errors.Is(err, workspace.ErrLink) {
					t.Errorf("%s: a link or file as a folder: %v", rel, err)
				}
			}
			for _, rel := range []string{"/sub/n.md", "sub//n.md", "./a.md", "sub/../a.md", "sub/", ""} {
				if b, _, err := read(rel, 100, nil); err == nil {
					t.Errorf("%q: read %q through a malformed path", rel, b)
				}
			}
			if _, _, err := read("a.md", 4, nil); !errors.Is(err, workspace.ErrTooLarge) {
				t.Errorf("size cap: %v", err)
			}
			b, _, err := read("a.md", 5, nil)
			if err != nil || string(b) != "hello" {
				t.Errorf("read at the cap: %q %v", b, err)
			}
		})
	}
}
