package snapshot

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/testws"
)

// editBytes is what a watching Source allocates, per note of a vault of
// notes notes, for the snapshot after one note changes (the mean of a few
// edits at different places), after checking that each was served by the
// per-document path and says what a fresh snapshot says.
func editBytes(t *testing.T, notes int) float64 {
	t.Helper()
	files := map[string]string{}
	for i := range notes {
		files[fmt.Sprintf("notes/%02d/%05d.md", i%16, i)] = fmt.Sprintf("---\ntype: note\nrefs: [\"%05d\"]\n---\n# N%d\n\nquokka %d\n", (i+1)%notes, i, i)
	}
	root := testws.Thin(t, files)
	if !feedAvailable(root) {
		t.Skip("no kernel change feed here")
	}
	time.Sleep(80 * time.Millisecond) // past the racy window
	var readmits atomic.Int64
	readmitted = func() { readmits.Add(1) }
	src := NewSource(testws.Bind(t, root), Options{Watch: true, Prepare: func(*graph.Document, string) any { return nil }})
	t.Cleanup(func() { readmitted = nil; src.Close() })
	if _, err := src.Snapshot(bg); err != nil {
		t.Fatal(err)
	}
	const edits = 6
	var total uint64
	var before, after runtime.MemStats
	for e := range edits {
		i := (e*notes/edits + 7) % notes
		write(t, root, fmt.Sprintf("notes/%02d/%05d.md", i%16, i), fmt.Sprintf("# N%d\n\nquokka edited %d\n", i, e))
		runtime.GC()
		runtime.ReadMemStats(&before)
		snap, err := src.Snapshot(bg)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		total += after.TotalAlloc - before.TotalAlloc
		want, err := Take(bg, src.Workspace(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if snap.Fingerprint != want.Fingerprint || describe(snap) != describe(want) {
			t.Fatalf("after edit %d the Source and a fresh snapshot disagree", e)
		}
	}
	if readmits.Load() != edits {
		t.Skipf("%d of %d edits took the per-document path (the feed could not vouch)", readmits.Load(), edits)
	}
	return float64(total) / edits / float64(notes)
}

// TestEditCopiesNoDocumentState checks that the snapshot after an edit
// shares what it keeps of every unchanged document with the last one: per
// note it allocates the documents' list (a pointer), and the pieces of
// stamps, preparations and fingerprint encoding that hold the edited note;
// not a copy of each note's read result and job, nor of every stamp,
// preparation, entry or graph node, which made an edit cost the whole
// vault. Bytes, not time: the same on a busy machine. What it bounds is
// what each note more in the vault adds to an edit (the difference between
// two vault sizes), so a fixed cost of the edit, which the race detector
// inflates (its sync.Pool drops items at random), cannot fail it.
func TestEditCopiesNoDocumentState(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a vault of 3,000 notes")
	}
	const smallN, largeN = 600, 3000
	small, large := editBytes(t, smallN), editBytes(t, largeN)
	perNote := (large*largeN - small*smallN) / (largeN - smallN)
	t.Logf("bytes per note per edit: %.0f at 600 notes, %.0f at 3,000; %.0f per note more", small, large, perNote)
	// About 20 here (the documents' list and its comparison); a copy of
	// every stamp, preparation, entry and graph node made it over 200, and
	// of every note's read result and job too over 600.
	if perNote > 48 {
		t.Errorf("each note more in the vault adds %.0f bytes to an edit, want at most 48", perNote)
	}
}
