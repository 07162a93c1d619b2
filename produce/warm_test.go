package produce_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
)

// A server's first question after the background reading finished goes on
// with the index that reading built: it reads again only the notes it
// quotes, not every note for an index of its own question's terms.
func TestFirstQuestionAfterWarmKeepsItsIndex(t *testing.T) {
	notes := map[string]string{}
	for i := range 60 {
		notes[fmt.Sprintf("notes/n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nwombat %d\n", i, i)
	}
	root := testws.Thin(t, notes)
	time.Sleep(80 * time.Millisecond) // past the racy window, so what was read can be kept
	r := produce.NewServingReader(bindWS(t, root))
	defer r.Close()
	if err := r.Warm(bg); err != nil {
		t.Fatal(err)
	}
	var reread atomic.Int32
	produce.SetBeforeServe(func(string) { reread.Add(1) })
	defer produce.SetBeforeServe(nil)
	const limit = 5
	res, err := r.Query(bg, produce.QueryArgs{Text: "wombat", Limit: limit})
	if err != nil || len(res.Results) != limit {
		t.Fatalf("the first question: %v %+v", err, res)
	}
	if n := reread.Load(); n > limit {
		t.Errorf("the first question read %d notes again; only the %d it quotes were due", n, limit)
	}
}
