package search_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/search"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// An index focused on a question, over a read pass that kept only that
// question's terms, ranks it exactly as a full index does: the same hits,
// scores, reasons and snippets. The questions cover joined neighbours
// ("data base"), identifiers, stopword-only and absent terms, a stopword
// that names a note (find) and words that others continue (mongo, data).
func TestFocusedIndexAnswersAsAFullOne(t *testing.T) {
	pages, _ := filepath.Glob("../guard/testdata/tldr/*.md")
	docs := map[string]string{
		"notes/ids.md":     "---\ntype: note\n---\n# DEC-0054 database\n\nSee DEC-0054 and hex dump, hexdump.\n",
		"notes/find.md":    "# find\n\n> Find files under a directory tree, find them by size.\n",
		"notes/mongodb.md": "# MongoDB\n\nThe mongodb shell, mongosh, and mongo-tools; databases.\n",
	}
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs["pages/"+filepath.Base(p)] = string(data)
	}
	root := testws.Thin(t, docs)
	ws := testws.Bind(t, root)
	ctx := context.Background()
	full := search.NewIndex()
	snap, err := snapshot.Take(ctx, ws, snapshot.Options{Prepare: search.Prepare})
	if err != nil {
		t.Fatal(err)
	}
	if err := full.Update(snap, read(ws)); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"how do I log in to a docker registry", "data base", "hex dump", "DEC-0054",
		"what is the", "quokka", "create a database user", "Login", "ünïcode ключ",
		"how do I find large files", "mongo shell", "find", "data",
	} {
		focus := search.FocusOn(q)
		focused := search.NewFocusedIndex(focus)
		fsnap, err := snapshot.Take(ctx, ws, snapshot.Options{Prepare: focus.Prepare})
		if err != nil {
			t.Fatal(err)
		}
		if err := focused.Update(fsnap, read(ws)); err != nil {
			t.Fatal(err)
		}
		if got, want := render(t, focused, ws, q), render(t, full, ws, q); got != want {
			t.Errorf("%q: focused index\n%s\nfull index\n%s", q, got, want)
		}
		if !focused.Answers(q) || !full.Answers(q) {
			t.Errorf("%q: an index says it cannot answer its own question", q)
		}
	}
}

// A focused index refuses to answer for a question it did not keep the
// terms of, and a full index built over the focused read pass reads the
// documents again rather than index the few terms they kept.
func TestFocusedIndexKnowsItsQuestion(t *testing.T) {
	root := testws.Thin(t, map[string]string{
		"notes/a.md": "# Alpha\n\nquokka wombat\n",
		"notes/b.md": "# Beta\n\nwombat numbat\n",
	})
	ws := testws.Bind(t, root)
	focus := search.FocusOn("quokka")
	snap, err := snapshot.Take(context.Background(), ws, snapshot.Options{Prepare: focus.Prepare})
	if err != nil {
		t.Fatal(err)
	}
	focused := search.NewFocusedIndex(focus)
	if err := focused.Update(snap, read(ws)); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"wombat", "quokka wombat", "wombat quokka"} {
		if focused.Answers(q) {
			t.Errorf("an index focused on quokka claims to answer %q", q)
		}
	}
	full := search.NewIndex()
	if err := full.Update(snap, read(ws)); err != nil {
		t.Fatal(err)
	}
	want := "notes/b.md"
	if got := render(t, full, ws, "numbat"); got == "" || got[:len(want)] != want {
		t.Errorf("a full index over a focused read pass answers numbat with\n%s", got)
	}
}
