package produce_test

import (
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
)

var searchDocs = map[string]string{
	".vivary/records/modules/a/storage.md": "---\nproject: p\nstatus: active\nmodule_area: storage\n---\n# Storage\n\nThe alpha store keeps notes in SQLite.\n",
	".vivary/records/modules/b/storage.md": "---\nproject: p\nstatus: active\nmodule_area: storage\n---\n# Storage\n\nThe beta store encrypts its backups in a second region.\n",
	".vivary/records/changes/move.md":      "---\nproject: p\nstatus: active\nslice: s\nrelated_modules: [storage]\n---\n# Move the store\n\nDEC-0054 says the move waits for the quokka migration.\n",
	".vivary/records/changes/other.md": "---\nproject: p\nstatus: active\nslice: quokka-tracking\n---\n" +
		"# Other\n\n```sh\n# Not a title\n```\n\nNothing here mentions the identifier, only dec and 0054 apart.\n",
	"notes/Obsidian for iOS.md": "Sync works on phones too.\n",
}

// Two notes of one file name in different folders are both found, told
// apart by path, and a ref to their shared id is a W221 warning.
func TestSameFileNameNotesAreSeparateResults(t *testing.T) {
	t.Parallel()
	r := produce.NewReader(bindWS(t, testws.Thin(t, searchDocs)))
	res, err := r.Query(bg, produce.QueryArgs{Text: "encrypted backups", Limit: 5, SnippetChars: 80})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].Path != ".vivary/records/modules/b/storage.md" {
		t.Fatalf("results %+v", res.Results)
	}
	res, err = r.Query(bg, produce.QueryArgs{Text: "storage", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, h := range res.Results {
		if h.ID == "storage" {
			paths = append(paths, h.Path)
		}
	}
	if strings.Join(paths, " ") != ".vivary/records/modules/a/storage.md .vivary/records/modules/b/storage.md" {
		t.Fatalf("storage hits %q", paths)
	}
	check, err := r.Check(bg, produce.CheckArgs{})
	if err != nil {
		t.Fatal(err)
	}
	var w221 []string
	for _, f := range check.Findings {
		if f.Code == "W221" {
			w221 = append(w221, f.Path+": "+f.Message)
		}
	}
	want := ".vivary/records/changes/move.md: ambiguous reference: related_modules names storage, which 2 documents have as their id; rename all but one of them"
	if strings.Join(w221, "\n") != want {
		t.Fatalf("W221 findings %q, want %q", w221, want)
	}
}

// An identifier is one term: DEC-0054 finds the note that writes it, not
// the one holding "dec" and "0054" apart. The snippet is the passage that
// holds the match, never the frontmatter fence.
func TestIdentifierAndSnippet(t *testing.T) {
	t.Parallel()
	r := produce.NewReader(bindWS(t, testws.Thin(t, searchDocs)))
	res, err := r.Query(bg, produce.QueryArgs{Text: "DEC-0054", Limit: 5, SnippetChars: 40})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].ID != "move" {
		t.Fatalf("results %+v", res.Results)
	}
	if s := res.Results[0].Snippet; s == nil || *s != "DEC-0054 says the move waits for the..." {
		t.Fatalf("snippet %q", *s)
	}
	// A match only in the frontmatter is shown as key: value.
	res, err = r.Query(bg, produce.QueryArgs{Text: "quokka tracking", Limit: 1, SnippetChars: 80})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Results[0].Snippet; res.Results[0].ID != "other" || s == nil || *s != "slice: quokka-tracking" {
		t.Fatalf("results %+v", res.Results)
	}
}

// The title is the first heading outside fenced code, else the file name as
// written.
func TestTitles(t *testing.T) {
	t.Parallel()
	r := produce.NewReader(bindWS(t, testws.Thin(t, searchDocs)))
	for q, want := range map[string]string{"identifier apart": "Other", "sync phones": "Obsidian for iOS"} {
		res, err := r.Query(bg, produce.QueryArgs{Text: q, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != 1 || res.Results[0].Title != want {
			t.Errorf("%q: %+v, want title %q", q, res.Results, want)
		}
	}
}

// A one-shot reader's index keeps only its first question's terms; asked
// more questions (or the first again, with filters), the same reader
// answers each exactly as a reader made for it alone.
func TestOneReaderManyQuestions(t *testing.T) {
	t.Parallel()
	root := testws.Thin(t, searchDocs)
	questions := []produce.QueryArgs{
		{Text: "quokka migration", Limit: 5, SnippetChars: 80},
		{Text: "quokka migration", Limit: 5, Filters: produce.Filters{Type: []string{"change"}}},
		{Text: "DEC-0054", Limit: 5, SnippetChars: 80},
		{Text: "alpha store", Limit: 5},
		{Text: "quokka", Limit: 5},
	}
	shared := produce.NewReader(bindWS(t, root))
	for _, q := range questions {
		got, err := shared.Query(bg, q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := produce.NewReader(bindWS(t, root)).Query(bg, q)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := jsonOf(t, got), jsonOf(t, want); string(g) != string(w) {
			t.Errorf("%q: a reader asked before answers\n%s\nalone\n%s", q.Text, g, w)
		}
	}
}
