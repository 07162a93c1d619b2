package snapshot_test

import (
	"context"
	"testing"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/snapshot"
)

var bg = context.Background()

// Prepare sees every served document once, in the read pass, and its
// result stays beside that document after the snapshot is sorted.
func TestPrepareRunsOncePerDocument(t *testing.T) {
	root := testws.Thin(t, map[string]string{
		"notes/b.md":   "# B\n",
		"notes/a-c.md": "# AC\n",
		"notes/a/b.md": "# AB\n",
		"notes/s.md":   "# S\n\npassword = hunter2\n",
	})
	snap, err := snapshot.Take(bg, testws.Bind(t, root), snapshot.Options{
		Prepare: func(d *graph.Document, _ string) any { return "prepared:" + d.Path },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Docs) < 3 || snap.Prepared(len(snap.Docs)) != nil {
		t.Fatalf("%d documents, and one prepared past them", len(snap.Docs))
	}
	for i, d := range snap.Docs {
		if snap.Prepared(i) != "prepared:"+d.Path {
			t.Errorf("document %s carries %v", d.Path, snap.Prepared(i))
		}
		if d.Path == "notes/s.md" {
			t.Errorf("a document with a credential was served")
		}
	}
}
