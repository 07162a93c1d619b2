package snapshot_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/snapshot"
	"github.com/vivary-dev/vivary-go/workspace"
)

// exampleWorkspace is a new workspace (the five scaffold files) with notes.
func exampleWorkspace(notes map[string]string) (root string, cleanup func()) {
	dir, err := os.MkdirTemp("", "vivary-example-")
	if err != nil {
		log.Fatal(err)
	}
	if err := testws.Scaffold(dir+"/vault", notes); err != nil {
		log.Fatal(err)
	}
	return dir + "/vault", func() { os.RemoveAll(dir) }
}

// A snapshot holds the documents the privacy policy admitted, and counts
// what it left out and why: a note with a secret-looking name is never
// read, and a note that holds a credential is read but not served.
func ExampleTake() {
	root, cleanup := exampleWorkspace(map[string]string{
		"notes/quokka.md":    "# Quokka\n\nA small marsupial that sleeps by day.\n",
		"notes/keys.md":      "# Keys\n\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
		"notes/api-token.md": "# Tokens\n\nnever read\n",
	})
	defer cleanup()
	ws, err := workspace.Bind(root)
	if err != nil {
		log.Fatal(err)
	}
	defer ws.Close()

	snap, err := snapshot.Take(context.Background(), ws, snapshot.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range snap.Docs {
		fmt.Println(d.Path)
	}
	for _, o := range snap.Omissions {
		fmt.Println("omitted:", o.Kind, o.Reason, o.Count)
	}
	fmt.Println("complete:", snap.Complete)
	// Output:
	// .vivary/context.md
	// AGENTS.md
	// STATE.md
	// notes/quokka.md
	// omitted: document sensitive_content 1
	// omitted: document sensitive_name 1
	// complete: true
}

// A Source keeps its last snapshot while it proves it still describes the
// tree, and sees a change on the very next call.
func ExampleSource() {
	root, cleanup := exampleWorkspace(map[string]string{"notes/quokka.md": "# Quokka\n"})
	defer cleanup()
	ws, err := workspace.Bind(root)
	if err != nil {
		log.Fatal(err)
	}
	defer ws.Close()
	src := snapshot.NewSource(ws, snapshot.Options{})
	defer src.Close()
	ctx := context.Background()

	before, err := src.Snapshot(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(root+"/notes/wombat.md", []byte("# Wombat\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	after, err := src.Snapshot(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(before.Docs), "documents, then", len(after.Docs))
	fmt.Println("same fingerprint:", before.Fingerprint == after.Fingerprint)
	// Output:
	// 4 documents, then 5
	// same fingerprint: false
}
