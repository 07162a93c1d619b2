//go:build unix

package snapshot

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
)

// A note replaced between the walk that judged it and its read is left
// out unread, never served: by a file of the same size (the read's one
// fstat proves the handle is not the walk's file) or by a FIFO (refused,
// and the read does not block).
func TestSwappedBetweenWalkAndReadIsNotServed(t *testing.T) {
	for name, swap := range map[string]func(p string) error{
		"same-size file": func(p string) error {
			if err := os.WriteFile(p+".new", []byte("# A\n\nquokka SECRET\n"), 0o644); err != nil {
				return err
			}
			return os.Rename(p+".new", p)
		},
		"fifo": func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return syscall.Mkfifo(p, 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := testws.Thin(t, map[string]string{"notes/a.md": "# A\n\nquokka public\n", "notes/b.md": "# B\n\nwombat\n"})
			ws := testws.Bind(t, root)
			beforeReads = func() {
				if err := swap(filepath.Join(root, "notes", "a.md")); err != nil {
					t.Error(err)
				}
			}
			defer func() { beforeReads = nil }()
			snap, err := Take(bg, ws, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var served []string
			for _, d := range snap.Docs {
				served = append(served, d.Path)
			}
			if slices.Contains(served, "notes/a.md") || !slices.Contains(served, "notes/b.md") {
				t.Fatalf("served %v", served)
			}
			if snap.Complete || !slices.Contains(snap.Unreadable, "notes/a.md") {
				t.Fatalf("complete %v, unreadable %v", snap.Complete, snap.Unreadable)
			}
		})
	}
}
