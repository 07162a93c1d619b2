package produce_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
)

// While a directory is swapped for a link to secret content and back, no
// query or find may ever serve what is behind the link. The race runs for a
// count of rounds on both sides, however slow the machine.
func TestLinkSwapNeverLeaks(t *testing.T) {
	t.Parallel()
	const rounds = 20
	root := fixture(t)
	secret := filepath.Join(t.TempDir(), "secret")
	testws.Write(t, secret, "n.md", "# Quokka\n\n"+marker+" quokka\n")
	testws.Write(t, root, "swap/n.md", "# Quokka\n\npublic quokka\n")
	r := produce.NewReader(bindWS(t, root))
	serves := func(what string) bool {
		res, err := r.Query(bg, produce.QueryArgs{Text: "quokka", Limit: 20, SnippetChars: 200})
		return err == nil && bytes.Contains(jsonOf(t, res), []byte(what))
	}
	// Before the swapping starts, so a failure here is the fixture's.
	if !serves("public quokka") {
		t.Fatal("the note is not served before the race")
	}
	var stop atomic.Bool
	var swaps atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		real, aside := filepath.Join(root, "swap"), filepath.Join(root, "swap.aside")
		for !stop.Load() {
			os.Rename(real, aside)
			os.Symlink(secret, real)
			time.Sleep(time.Millisecond) // the link stays long enough to be met
			os.Remove(real)
			os.Rename(aside, real)
			swaps.Add(1)
		}
	}()
	defer func() { stop.Store(true); <-done }()
	for calls := 1; calls <= rounds || swaps.Load() < rounds; calls++ {
		var out []byte
		if res, err := r.Query(bg, produce.QueryArgs{Text: "quokka", Limit: 20, SnippetChars: 200, Explain: true}); err == nil {
			out = jsonOf(t, res)
		}
		if res, err := r.Find(bg, produce.FindArgs{Question: "quokka", Limit: 20, Budget: 4000}); err == nil {
			out = append(out, jsonOf(t, res)...)
		}
		if bytes.Contains(out, []byte(marker)) {
			t.Fatalf("call %d served content from behind a swapped-in link", calls)
		}
	}
}
