package search_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/search"
	"github.com/vivary-dev/vivary-go/snapshot"
	"github.com/vivary-dev/vivary-go/workspace"
)

// An index is built from a snapshot whose read pass tokenized each
// document (search.Prepare), and ranks them for a question. A snapshot
// keeps no text: the search reads the few best again, through the
// snapshot, for their snippets.
func Example() {
	dir, err := os.MkdirTemp("", "vivary-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	root := dir + "/vault"
	err = testws.Scaffold(root, map[string]string{
		"notes/quokka.md": "# Quokka\n\nThe quokka sleeps through the day in dense scrub and feeds at night.\n",
		"notes/wombat.md": "# Wombat\n\nA wombat digs burrows and sleeps in them.\n",
		"notes/kettle.md": "# Kettle\n\nDescale the kettle every month.\n",
	})
	if err != nil {
		log.Fatal(err)
	}
	ws, err := workspace.Bind(root)
	if err != nil {
		log.Fatal(err)
	}
	defer ws.Close()
	ctx := context.Background()

	snap, err := snapshot.Take(ctx, ws, snapshot.Options{Prepare: search.Prepare})
	if err != nil {
		log.Fatal(err)
	}
	read := func(d *graph.Document) (string, error) { return snapshot.Text(ws, d) }
	ix := search.NewIndex()
	if err := ix.Update(snap, read); err != nil {
		log.Fatal(err)
	}
	hits, err := ix.Search(ctx, search.Query{Text: "where does the quokka sleep", K: 2, SnippetChars: 60, Read: read})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("%s %d %v\n  %s\n", h.Doc.Path, h.Score, h.Reasons, h.Snippet)
	}
	// Output:
	// notes/quokka.md 1181 [title/id match path match body match]
	//   The quokka sleeps through the day in dense scrub and feeds...
	// notes/wombat.md 488 [body match]
	//   ...digs burrows and sleeps in them.
}

// Terms are what a question looks up: stopwords dropped, words stemmed
// lightly, an identifier with a digit kept whole, other compounds split.
func ExampleTerms() {
	fmt.Println(search.Terms("How are the git-ignore rules for v2-config checked?"))
	// Output: [git ignor rule v2-config check]
}
