package snapshot

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/internal/benchgen"
	"github.com/vivary-dev/vivary-go/internal/testws"
)

// benchTree is the tree a benchmark reads: VIVARY_BENCH_TREE when set (a
// writable copy of a generated vault: the edit benchmark writes into it),
// else a generated workspace of 1,000 notes (VIVARY_BENCH_NOTES sets
// another count).
func benchTree(b *testing.B) string {
	if root := os.Getenv("VIVARY_BENCH_TREE"); root != "" {
		return root
	}
	root := filepath.Join(b.TempDir(), "bench")
	notes := 1000
	if n, err := strconv.Atoi(os.Getenv("VIVARY_BENCH_NOTES")); err == nil {
		notes = n
	}
	if err := benchgen.Write(root, notes, 5000); err != nil {
		b.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond) // past the racy window
	return root
}

// BenchmarkTakeCold is a cold snapshot, as a fresh process takes it.
func BenchmarkTakeCold(b *testing.B) {
	ws := testws.Bind(b, benchTree(b))
	for b.Loop() {
		if _, err := Take(context.Background(), ws, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEditThenCall is a long-lived process's call right after one
// note's content was rewritten in place, next to `rg -l --hidden` over the
// same tree in the same run (the floor every figure is compared with).
func BenchmarkEditThenCall(b *testing.B) {
	root := benchTree(b)
	var target string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && target == "" && !d.IsDir() && strings.HasSuffix(p, ".md") && strings.Contains(p, "records") {
			target = p
		}
		return nil
	})
	if target == "" {
		b.Skip("no note to edit")
	}
	orig, err := os.ReadFile(target)
	if err != nil {
		b.Fatal(err)
	}
	defer os.WriteFile(target, orig, 0o644)
	ws := testws.Bind(b, root)
	src := NewSource(ws, Options{Watch: true})
	defer src.Close()
	if _, err := src.Snapshot(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Run("edit then call", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			b.StopTimer()
			edited := append(append([]byte(nil), orig...), "\nedit "+strconv.Itoa(i)+"\n"...)
			if err := os.WriteFile(target, edited, 0o644); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := src.Snapshot(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})
	rg, err := exec.LookPath("rg")
	if err != nil {
		return
	}
	b.Run("rg -l --hidden", func(b *testing.B) {
		for b.Loop() {
			err := exec.Command(rg, "-l", "--hidden", "quokka", root).Run()
			if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
				b.Fatal(err)
			}
		}
	})
}
