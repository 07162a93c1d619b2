package produce_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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

func BenchmarkQueryWarm(b *testing.B) {
	r := benchReader(b)
	for b.Loop() {
		if _, err := r.Query(bg, produce.QueryArgs{Text: "quokka privacy", Limit: 10, SnippetChars: 160}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFindWarm(b *testing.B) {
	r := benchReader(b)
	for b.Loop() {
		if _, err := r.Find(bg, produce.FindArgs{Question: "how does the snapshot cache work", Limit: 5, Budget: 1200}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckWarm(b *testing.B) {
	r := benchReader(b)
	for b.Loop() {
		if _, err := r.Check(bg, produce.CheckArgs{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshotCold(b *testing.B) {
	r := benchReader(b)
	ws := r.Workspace()
	for b.Loop() {
		if _, err := produce.Take(bg, ws); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueryCold is one query on a fresh Reader: snapshot, search
// index and term scans, as a fresh `vivary query` process does them.
func BenchmarkQueryCold(b *testing.B) {
	r := benchReader(b)
	ws := r.Workspace()
	for b.Loop() {
		if _, err := produce.NewReader(ws).Query(bg, produce.QueryArgs{Text: "quokka privacy", Limit: 10, SnippetChars: 160}); err != nil {
			b.Fatal(err)
		}
	}
}
