package search

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/benchgen"
	"github.com/vivary-dev/vivary-go/policy"
)

// BenchmarkPrepare is the tokenizing cost the read pass pays per note, on
// the tldr slice in guard's testdata.
func BenchmarkPrepare(b *testing.B) {
	pages, _ := filepath.Glob("../guard/testdata/tldr/*.md")
	benchPrepare(b, readNotes(b, pages), nil)
}

// BenchmarkPrepareVault is the same on notes like the big-vault figures'
// (benchgen, 7,400 body bytes each): a long-running process's full index,
// and a one-shot query's focused one.
func BenchmarkPrepareVault(b *testing.B) {
	notes := vaultNotes(b)
	b.Run("full", func(b *testing.B) { benchPrepare(b, notes, nil) })
	b.Run("focus", func(b *testing.B) { benchPrepare(b, notes, FocusOn("how does the capsule budget limit a snippet?")) })
}

func vaultNotes(b *testing.B) []note {
	dir := b.TempDir()
	if err := benchgen.Write(dir, 40, 7400); err != nil {
		b.Fatal(err)
	}
	var paths []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") {
			paths = append(paths, p)
		}
		return err
	})
	return readNotes(b, paths)
}

type note struct {
	doc  *graph.Document
	text string
}

func readNotes(b *testing.B, paths []string) []note {
	var notes []note
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		d := graph.Analyze(&policy.Config{AllowUntyped: true}, "notes/"+filepath.Base(p), "ws", string(data), 1, 1)
		notes = append(notes, note{d, string(data)})
	}
	return notes
}

func benchPrepare(b *testing.B, notes []note, focus *Focus) {
	var size int64
	for _, n := range notes {
		size += int64(len(n.text))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range notes {
			prepareFor(n.doc, n.text, focus)
		}
	}
}
