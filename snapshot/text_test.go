package snapshot

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/testws"
)

// holds reports whether d was read from exactly these bytes.
func holds(d *graph.Document, text string) bool { return d.Digest == hexSHA([]byte(text)) }

func docAt(t *testing.T, s *Snapshot, rel string) *graph.Document {
	t.Helper()
	for _, d := range s.Docs {
		if d.Path == rel {
			return d
		}
	}
	t.Fatalf("no document %s", rel)
	return nil
}

// The text read again is the very text the read pass screened, analysed
// and handed to Prepare (a BOM dropped, invalid UTF-8 replaced alike).
func TestTextIsTheAnalysedText(t *testing.T) {
	notes := map[string]string{
		"notes/a.md":   "# A\n\nquokka\n",
		"notes/bom.md": "\ufeff---\nstatus: x\n---\n# B\n\nwombat\n",
		"notes/bad.md": "# C\n\nnum\xffbat\n",
	}
	root := testws.Thin(t, notes)
	ws := testws.Bind(t, root)
	prepared := map[string]string{}
	snap, err := Take(bg, ws, Options{Prepare: func(d *graph.Document, text string) any {
		return strings.Clone(text) // Prepare may not keep the text itself
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range snap.Docs {
		prepared[d.Path] = snap.Prepared(i).(string)
	}
	for rel := range notes {
		got, err := Text(ws, docAt(t, snap, rel))
		if err != nil || got != prepared[rel] {
			t.Errorf("%s: Text %q, %v; Prepare saw %q", rel, got, err, prepared[rel])
		}
	}
}

// A document rewritten after the snapshot read it is never served: Text
// refuses it whether its stamp changed (any real rewrite) or, standing for
// a rewrite the stamps cannot see, only its bytes did. The Source, told to
// forget the snapshot, reads the document afresh.
func TestTextRefusesChangedBytes(t *testing.T) {
	root := testws.Thin(t, map[string]string{"notes/a.md": "# A\n\nquokka\n"})
	time.Sleep(60 * time.Millisecond) // past the racy window, so the snapshot is kept
	ws := testws.Bind(t, root)
	src := NewSource(ws, Options{})
	defer src.Close()
	snap, err := src.Snapshot(bg)
	if err != nil {
		t.Fatal(err)
	}
	d := docAt(t, snap, "notes/a.md")

	reread = func(rel string, data []byte) []byte {
		return bytes.Replace(data, []byte("quokka"), []byte("ZEBRAM"), 1)
	}
	got, err := Text(ws, d)
	reread = nil
	if !errors.Is(err, ErrStale) || got != "" {
		t.Fatalf("same stamp, other bytes: Text %q, %v", got, err)
	}
	if again, err := src.Snapshot(bg); err != nil || again != snap {
		t.Fatalf("the kept snapshot is not kept: %v", err)
	}
	src.Forget(snap)
	fresh, err := src.Snapshot(bg)
	if err != nil || fresh == snap {
		t.Fatalf("Forget kept the snapshot: %v", err)
	}

	testws.Write(t, root, "notes/a.md", "# A\n\nZEBRAMARKER\n")
	d = docAt(t, fresh, "notes/a.md")
	if got, err := Text(ws, d); !errors.Is(err, ErrStale) || got != "" {
		t.Fatalf("rewritten: Text %q, %v", got, err)
	}
}
