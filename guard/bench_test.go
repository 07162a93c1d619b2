package guard_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/internal/benchgen"
)

// benchTexts are the Markdown texts of a generated bench workspace of 1,000
// notes (VIVARY_BENCH_NOTES sets another count; 4997 is the bench harness's
// full size).
func benchTexts(tb testing.TB) []string { return benchTextsOf(tb, benchgen.Small, 5000) }

func benchTextsOf(tb testing.TB, v benchgen.Vocab, bodyBytes int) []string {
	tb.Helper()
	root := filepath.Join(tb.TempDir(), "bench")
	notes := 1000
	if n, err := strconv.Atoi(os.Getenv("VIVARY_BENCH_NOTES")); err == nil {
		notes = n
	}
	if err := benchgen.WriteVocab(root, notes, bodyBytes, v); err != nil {
		tb.Fatal(err)
	}
	return markdownTexts(tb, root)
}

func markdownTexts(tb testing.TB, root string) []string {
	tb.Helper()
	var out []string
	for _, n := range markdownTextsNamed(tb, root) {
		out = append(out, n.text)
	}
	return out
}

// BenchmarkScreen is the document screen a cold call runs over every text:
// credentials and the workspace root. Its share of the cold call is this
// time over BenchmarkCold's in produce (same note count).
func BenchmarkScreen(b *testing.B) { benchScreen(b, benchTexts(b)) }

// BenchmarkScreenZipf is BenchmarkScreen over notes of the Zipf
// vocabulary, of the size a cold check was measured on (7.4 KB): the
// small vocabulary's 80 words have none of the long or rare words whose
// gates real prose opens.
func BenchmarkScreenZipf(b *testing.B) { benchScreen(b, benchTextsOf(b, benchgen.Zipf, 7400)) }

func benchScreen(b *testing.B, texts []string) {
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	for b.Loop() {
		for _, t := range texts {
			if guard.Credential(t) || guard.ContainsRoot(t, "/home/user/bench") {
				b.Fatal("a generated note was screened out")
			}
		}
	}
}
