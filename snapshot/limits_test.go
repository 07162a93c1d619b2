package snapshot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/limits"
)

// MaxOmissionRows rows are listed as they are; one more folds the last two
// into one snapshot/omissions_truncated row that keeps their total.
func TestOmissionRowsAtMaxAndOver(t *testing.T) {
	rows := func(n int) map[[2]string]int {
		m := map[[2]string]int{}
		for i := 0; i < n; i++ {
			m[[2]string{"document", fmt.Sprintf("r%02d", i)}] = i + 1
		}
		return m
	}
	at := Rows(rows(limits.MaxOmissionRows))
	if len(at) != limits.MaxOmissionRows || at[len(at)-1].Reason == "omissions_truncated" {
		t.Fatalf("at max: %+v", at)
	}
	n := limits.MaxOmissionRows + 1
	over := Rows(rows(n))
	last := over[len(over)-1]
	if len(over) != limits.MaxOmissionRows || last.Kind != "snapshot" || last.Reason != "omissions_truncated" || last.Count != n-1+n {
		t.Fatalf("at max+1: %+v", over)
	}
}

// A document of exactly the file ceiling is read; one byte more is left out
// as document/too_large.
func TestFileBytesAtMaxAndOver(t *testing.T) {
	const max = 4096
	body := func(n int) string { return "# At\n\n" + strings.Repeat("x", n-len("# At\n\n")) }
	root := testws.Thin(t, map[string]string{"notes/at.md": body(max), "notes/over.md": body(max + 1)})
	lower(t, ceiling{entries: 1 << 30, files: 1 << 30, file: max, bytes: 1 << 40})
	snap, err := Take(bg, testws.Bind(t, root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, d := range snap.Docs {
		served[d.Path] = true
	}
	if !served["notes/at.md"] || served["notes/over.md"] || omitted(snap, "document", "too_large") != 1 {
		t.Fatalf("served %v, omissions %+v", served, snap.Omissions)
	}
}
