package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/internal/benchgen"
	"github.com/vivary-dev/vivary-go/internal/testws"
)

// BenchmarkTakeCold is a cold snapshot of a generated workspace of 1,000
// notes (VIVARY_BENCH_NOTES sets another count), as a fresh process takes it.
func BenchmarkTakeCold(b *testing.B) {
	root := filepath.Join(b.TempDir(), "bench")
	notes := 1000
	if n, err := strconv.Atoi(os.Getenv("VIVARY_BENCH_NOTES")); err == nil {
		notes = n
	}
	if err := benchgen.Write(root, notes, 5000); err != nil {
		b.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond) // past the racy window
	ws := testws.Bind(b, root)
	for b.Loop() {
		if _, err := Take(context.Background(), ws, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
