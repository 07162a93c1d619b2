package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/reason"
)

// A call cut short (cancelled, or out of time) leaves what it read in the
// Source: the next call reads only the rest, and a note changed since it
// was read is read again and served as it is now, with the change feed and
// with stamps alone.
func TestCutCallsWorkIsKept(t *testing.T) {
	const notes, cut = 200, 50
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			extra := map[string]string{}
			for i := range notes {
				extra[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("# N%03d alpha\n\nbody %d\n", i, i)
			}
			root := testws.Thin(t, extra)
			if watch && !feedAvailable(root) {
				t.Skip("no kernel change feed here")
			}
			time.Sleep(80 * time.Millisecond) // past the racy window, so stamps can prove a note unchanged

			var mu sync.Mutex
			var prepared []string
			var onPrepare func(n int)
			src := NewSource(testws.Bind(t, root), Options{Watch: watch, Prepare: func(d *graph.Document, text string) any {
				mu.Lock()
				prepared = append(prepared, d.Path)
				n, hook := len(prepared), onPrepare
				mu.Unlock()
				if hook != nil {
					hook(n)
				}
				return nil
			}})
			t.Cleanup(src.Close)
			ctx, cancel := context.WithCancel(bg)
			mu.Lock()
			onPrepare = func(n int) {
				if n == cut {
					cancel()
				}
			}
			mu.Unlock()
			if _, err := src.Snapshot(ctx); reason.Of(err) != reason.ProducerUnavailable {
				t.Fatalf("the cut call: %v", err)
			}
			first := drainPrepared(&mu, &prepared)
			mu.Lock()
			onPrepare = nil
			mu.Unlock()
			if len(first) < cut || len(first) >= notes {
				t.Fatalf("the cut call read %d notes", len(first))
			}

			// A note the cut call read changes, keeping its size.
			changed := ""
			for _, rel := range first {
				if strings.HasPrefix(rel, "notes/") {
					changed = rel
					break
				}
			}
			full := filepath.Join(root, filepath.FromSlash(changed))
			old, err := os.ReadFile(full)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(strings.Replace(string(old), "alpha", "omega", 1)), 0o644); err != nil {
				t.Fatal(err)
			}

			snap, err := src.Snapshot(bg)
			if err != nil {
				t.Fatal(err)
			}
			second := drainPrepared(&mu, &prepared)
			if want := len(snap.Docs) - len(first) + 1; len(second) != want {
				t.Errorf("the next call read %d notes; want the %d the cut call did not, and the changed one", len(second), want)
			}
			read := false
			for _, rel := range second {
				read = read || rel == changed
			}
			if !read {
				t.Errorf("%s changed after the cut call read it, and was not read again", changed)
			}
			for _, d := range snap.Docs {
				if d.Path == changed && !strings.Contains(d.Title, "omega") {
					t.Errorf("%s served as %q, not as it is now", changed, d.Title)
				}
			}
			fresh, err := Take(bg, testws.Bind(t, root), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if snap.Fingerprint != fresh.Fingerprint {
				t.Errorf("the converged snapshot differs from a fresh one")
			}
		})
	}
}

// drainPrepared returns what was prepared so far and starts the count again.
func drainPrepared(mu *sync.Mutex, prepared *[]string) []string {
	mu.Lock()
	defer mu.Unlock()
	out := *prepared
	*prepared = nil
	return out
}

// A cancel in the middle of the read pass stops it at once: no worker
// starts a document after it, whatever the size of the tree, so a cut call
// frees its slot in the time of the documents already in hand.
func TestCancelStopsTheReadPass(t *testing.T) {
	const notes, cut = 300, 50
	extra := map[string]string{}
	for i := range notes {
		extra[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("# N%03d\n\nbody %d\n", i, i)
	}
	ws := testws.Bind(t, testws.Thin(t, extra))
	var mu sync.Mutex
	n, after := 0, 0
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	_, err := Take(ctx, ws, Options{Prepare: func(d *graph.Document, text string) any {
		mu.Lock()
		defer mu.Unlock()
		n++
		switch {
		case n == cut:
			cancel()
		case n > cut:
			after++
		}
		return nil
	}})
	if reason.Of(err) != reason.ProducerUnavailable {
		t.Fatalf("the cancelled take: %v", err)
	}
	// Each other worker may finish the one document it held.
	if workers := runtime.GOMAXPROCS(0); after > workers-1 {
		t.Errorf("%d documents were read after the cancel, with %d workers", after, workers)
	}
}

// After a cut call, the next one goes on under the cut call's walk and
// admission while the change feed proves they hold: it lists no folder.
// A name created, or an ignore rule changed, since is walked and admitted
// afresh: a new note is served, a note now ignored is not, though the cut
// call read it.
func TestCutCallGoesOnUnderItsPlan(t *testing.T) {
	for _, change := range []string{"nothing", "a new note", "a note now ignored"} {
		t.Run(change, func(t *testing.T) {
			extra := map[string]string{}
			for i := range 120 {
				extra[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("# N%03d\n\nbody %d\n", i, i)
			}
			root := testws.Thin(t, extra)
			testws.Git(t, root, "init", "-q")
			if !feedAvailable(root) {
				t.Skip("no kernel change feed here")
			}
			time.Sleep(80 * time.Millisecond) // past the racy window
			var mu sync.Mutex
			var read []string
			cut := func() {}
			src := NewSource(testws.Bind(t, root), Options{Watch: true, Prepare: func(d *graph.Document, text string) any {
				mu.Lock()
				defer mu.Unlock()
				read = append(read, d.Path)
				cut()
				return nil
			}})
			t.Cleanup(src.Close)
			ctx, cancel := context.WithCancel(bg)
			mu.Lock()
			cut = func() {
				if len(read) == 40 {
					cancel()
				}
			}
			mu.Unlock()
			if _, err := src.Snapshot(ctx); reason.Of(err) != reason.ProducerUnavailable {
				t.Fatalf("the cut call: %v", err)
			}
			mu.Lock()
			cut = func() {}
			first := read
			mu.Unlock()
			ignored := ""
			switch change {
			case "a new note":
				testws.Write(t, root, "notes/zz-new.md", "# New\n\nfresh\n")
			case "a note now ignored":
				for _, rel := range first {
					if strings.HasPrefix(rel, "notes/") {
						ignored = rel
						break
					}
				}
				testws.Write(t, root, ".gitignore", testws.Read(t, root, ".gitignore")+"\n/"+ignored+"\n")
			}
			listed := 0
			beforeList = func(string) { listed++ }
			defer func() { beforeList = nil }()
			snap, err := src.Snapshot(bg)
			if err != nil {
				t.Fatal(err)
			}
			if change == "nothing" && listed != 0 {
				t.Errorf("the next call listed %d folders; the cut call's walk still held", listed)
			}
			if change != "nothing" && listed == 0 {
				t.Errorf("after %s, the next call did not walk again", change)
			}
			for _, d := range snap.Docs {
				if d.Path == ignored {
					t.Errorf("%s was served after an ignore rule took it out", ignored)
				}
			}
			fresh, err := Take(bg, testws.Bind(t, root), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if snap.Fingerprint != fresh.Fingerprint {
				t.Errorf("the snapshot after the cut differs from a fresh one:\n%v\n%v", paths(snap), paths(fresh))
			}
		})
	}
}
