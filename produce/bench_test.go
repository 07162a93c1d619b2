package produce_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/capsule"
	"github.com/vivary-dev/vivary-go/internal/benchgen"
	"github.com/vivary-dev/vivary-go/produce"
)

// benchReader is a warm Reader over a generated workspace of 1,000 notes
// (VIVARY_BENCH_NOTES sets another count).
func benchReader(b *testing.B) *produce.Reader {
	b.Helper()
	root := filepath.Join(b.TempDir(), "bench")
	notes := 1000
	if n, err := strconv.Atoi(os.Getenv("VIVARY_BENCH_NOTES")); err == nil {
		notes = n
	}
	if err := benchgen.Write(root, notes, 5000); err != nil {
		b.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond) // past the racy window
	r := produce.NewReader(bindWS(b, root))
	if _, err := r.Snapshot(bg); err != nil { // warm up outside the timed loop
		b.Fatal(err)
	}
	return r
}

// producerCalls are the four producers as a warm call on r.
var producerCalls = []struct {
	name string
	call func(r *produce.Reader) error
}{
	{"query", func(r *produce.Reader) error {
		_, err := r.Query(bg, produce.QueryArgs{Text: "quokka privacy", Limit: 10, SnippetChars: 160})
		return err
	}},
	{"find", func(r *produce.Reader) error {
		_, err := r.Find(bg, produce.FindArgs{Question: "how does the snapshot cache work", Limit: 5, Budget: 1200})
		return err
	}},
	{"check", func(r *produce.Reader) error {
		_, err := r.Check(bg, produce.CheckArgs{})
		return err
	}},
	{"capsule", func(r *produce.Reader) error {
		_, err := capsule.Compile(bg, r, capsule.Args{Question: "quokka privacy", MaxClaims: 24})
		return err
	}},
}

// BenchmarkWarm is each producer on a Reader whose snapshot is reused after
// its revalidation, as in a long-running vivary-mcp.
func BenchmarkWarm(b *testing.B) {
	r := benchReader(b)
	for _, p := range producerCalls {
		b.Run(p.name, func(b *testing.B) {
			if err := p.call(r); err != nil { // the search index, once
				b.Fatal(err)
			}
			for b.Loop() {
				if err := p.call(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCold is each producer on a fresh Reader: the snapshot, and for
// query and find the search index and term scans, as a fresh `vivary`
// process does them (less the process start).
func BenchmarkCold(b *testing.B) {
	ws := benchReader(b).Workspace()
	for _, p := range producerCalls {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				if err := p.call(produce.NewReader(ws)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEdit is one note rewritten, then the next query, on a serving
// Reader (vivary-mcp's) over Zipf-vocabulary notes of 7,400 bytes, next to
// a warm query on the unchanged tree: what an edit adds to the next
// answer. Each size is a sub-benchmark, so the edit's cost can be seen not
// to grow with the vault (VIVARY_BENCH_NOTES adds a size).
func BenchmarkEdit(b *testing.B) {
	sizes := []int{1000, 4000}
	if n, err := strconv.Atoi(os.Getenv("VIVARY_BENCH_NOTES")); err == nil {
		sizes = append(sizes, n)
	}
	for _, notes := range sizes {
		root := filepath.Join(b.TempDir(), "bench")
		if err := benchgen.WriteVocab(root, notes, 7400, benchgen.Zipf); err != nil {
			b.Fatal(err)
		}
		time.Sleep(60 * time.Millisecond) // past the racy window
		r := produce.NewServingReader(bindWS(b, root))
		defer r.Close()
		query := func(b *testing.B) {
			if _, err := r.Query(bg, produce.QueryArgs{Text: "quokka privacy", Limit: 10, SnippetChars: 160}); err != nil {
				b.Fatal(err)
			}
		}
		query(b) // the snapshot and the full index, once
		b.Run(strconv.Itoa(notes)+"/warm", func(b *testing.B) {
			for b.Loop() {
				query(b)
			}
		})
		b.Run(strconv.Itoa(notes)+"/edited", func(b *testing.B) {
			paths, _ := filepath.Glob(filepath.Join(root, ".vivary/records/changes/000/*.md"))
			orig, err := os.ReadFile(paths[0])
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				i++
				text := fmt.Sprintf("%s\nedited %d: quokka privacy %s\n", orig, i, strings.Repeat("wombat ", i%5))
				b.StopTimer() // the answer is timed, not the write
				if err := os.WriteFile(paths[0], []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				query(b)
			}
		})
	}
}
