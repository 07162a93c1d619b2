package graph_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/limits"
)

// A document keeps MaxEdgesPerDocument refs and counts the next one as
// omitted; a title of MaxTitleChars is kept whole and one more is cut.
func TestDocumentBoundsAtMaxAndOver(t *testing.T) {
	cfg := thinConfig(t)
	refs := func(n int) string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("m%d", i)
		}
		return "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: [" + strings.Join(ids, ", ") + "]\n---\n"
	}
	for _, n := range []int{limits.MaxEdgesPerDocument, limits.MaxEdgesPerDocument + 1} {
		d := graph.Analyze(cfg, "changes/c.md", "ws", refs(n), 1, 1)
		if len(d.Edges) != limits.MaxEdgesPerDocument || d.EdgeOmitted != n-limits.MaxEdgesPerDocument {
			t.Errorf("%d refs: kept %d, omitted %d", n, len(d.Edges), d.EdgeOmitted)
		}
	}
	for _, n := range []int{limits.MaxTitleChars, limits.MaxTitleChars + 1} {
		heading := strings.Repeat("é", n)
		d := graph.Analyze(cfg, "notes/n.md", "ws", "# "+heading+"\n", 1, 1)
		switch {
		case n <= limits.MaxTitleChars && d.Title != heading:
			t.Errorf("a %d-character title was changed to %d characters", n, utf8.RuneCountInString(d.Title))
		case n > limits.MaxTitleChars && (utf8.RuneCountInString(d.Title) != limits.MaxTitleChars || !strings.HasSuffix(d.Title, "...")):
			t.Errorf("a %d-character title became %d characters: ...%q", n, utf8.RuneCountInString(d.Title), d.Title[len(d.Title)-8:])
		}
	}
}

// A ref target of MaxRefTargetChars is an edge; one more is omitted and
// reported (E103), never cut.
func TestRefTargetAtMaxAndOver(t *testing.T) {
	cfg := thinConfig(t)
	for _, n := range []int{limits.MaxRefTargetChars, limits.MaxRefTargetChars + 1} {
		target := strings.Repeat("m", n)
		d := graph.Analyze(cfg, "changes/c.md", "ws", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: ["+target+"]\n---\n", 1, 1)
		kept := len(d.Edges) == 1 && d.Edges[0].To == target
		if kept != (n <= limits.MaxRefTargetChars) || kept == (d.EdgeOmitted == 1) {
			t.Errorf("a %d-character target: %d edges, %d omitted", n, len(d.Edges), d.EdgeOmitted)
		}
	}
}
