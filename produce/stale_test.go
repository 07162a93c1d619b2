package produce_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// A snapshot keeps no text: snippets and proximity read the best few
// documents again. A document rewritten between the snapshot and that read
// is never served with its new bytes: the call reads the tree afresh once,
// which screens them (here they hold a credential, so the note is left
// out), and when the document changes again on that second read, refuses.
func TestChangedAfterTheSnapshotIsNeverServed(t *testing.T) {
	for name, newReader := range map[string]func(*workspace.Workspace) *produce.Reader{
		"one-shot": produce.NewReader, "serving": produce.NewServingReader,
	} {
		for _, always := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, changed every time %v", name, always), func(t *testing.T) {
				testChangedAfterTheSnapshot(t, newReader, always)
			})
		}
	}
}

func testChangedAfterTheSnapshot(t *testing.T, newReader func(*workspace.Workspace) *produce.Reader, always bool) {
	root := testws.Thin(t, map[string]string{
		"notes/quokka.md":  "# Quokka\n\nquokka privacy notes\n",
		"notes/wallaby.md": "# Wallaby\n\nquokka privacy too\n",
	})
	time.Sleep(80 * time.Millisecond) // past the racy window: the snapshot is kept
	r := newReader(bindWS(t, root))
	defer r.Close()
	query := func() (*produce.QueryResult, error) {
		return r.Query(bg, produce.QueryArgs{Text: "quokka privacy", Limit: 10, SnippetChars: 80})
	}
	if _, err := query(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	rewrites := 0
	produce.SetBeforeServe(func(rel string) {
		mu.Lock()
		defer mu.Unlock()
		if rel == "notes/quokka.md" && (always || rewrites == 0) {
			rewrites++
			text := fmt.Sprintf("# Quokka\n\nquokka privacy %s\nsecret = hunter2\n", marker)
			if always {
				text = fmt.Sprintf("# Quokka\n\nquokka privacy %s %d\n", marker, rewrites)
			}
			testws.Write(t, root, rel, text)
		}
	})
	defer produce.SetBeforeServe(nil)
	res, err := query()
	if rewrites == 0 {
		t.Fatal("the hook never ran: nothing was read again")
	}
	if always {
		if reason.Of(err) != reason.ProducerUnavailable || res != nil {
			t.Fatalf("changed on every read: %v, %+v", err, res)
		}
		if strings.Contains(err.Error(), marker) || strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("the refusal quotes the new bytes: %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), marker) || strings.Contains(string(b), "hunter2") {
		t.Fatalf("served the new bytes:\n%s", b)
	}
	if strings.Contains(ids(res), "quokka") || !strings.Contains(string(b), "sensitive_content") {
		t.Fatalf("the new bytes were not screened: %s", b)
	}
}
