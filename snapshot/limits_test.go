package snapshot

import (
	"fmt"
	"testing"

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
