package produce_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
)

// The ranking on a slice of real notes nobody here wrote: the tldr pages
// kept in guard's testdata (CC BY 4.0, see LICENSE.md there). A changed
// ranking shows here as a changed order, score or snippet.
func TestTldrRankingGolden(t *testing.T) {
	t.Parallel()
	pages, _ := filepath.Glob("../guard/testdata/tldr/*.md")
	docs := map[string]string{}
	for _, p := range pages {
		if filepath.Base(p) == "LICENSE.md" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs["pages/"+filepath.Base(p)] = string(b)
	}
	r := produce.NewReader(bindWS(t, testws.Thin(t, docs)))
	var out []any
	for _, q := range []string{
		"how do I generate an ssh key",
		"back up a mongo database",
		"encrypt a folder with a password",
		"upload a python package",
		"list the users of a database",
		"psql",
		"doctl databases",
		"send a file that expires",
	} {
		res, err := r.Query(bg, produce.QueryArgs{Text: q, Limit: 3, SnippetChars: 120, Explain: true})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		out = append(out, map[string]any{"query": q, "results": res.Results})
	}
	golden(t, "tldr_ranking.golden.json", jsonOf(t, out))
}
