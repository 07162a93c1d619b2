package search

import (
	"testing"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/policy"
)

// Whatever the note and the question, a snippet is valid UTF-8 within its
// limit plus the two "..." marks (the published bound is 1,000 + 6), and
// every query term is one the tokenizer can produce from the question.
func FuzzSnippet(f *testing.F) {
	f.Add("---\nstatus: x\n---\n# T\n\nE[x]tract a tar.gz DEC-0054 file\n", "extract dec-0054", 20)
	f.Add("```\n# code\n```\nnon-ASCII İstanbul ﬁle straße", "istanbul file", 5)
	f.Add("[c]reate [ab]c x[y] ]] [[", "create", 1)
	f.Fuzz(func(t *testing.T, text, q string, limit int) {
		if !utf8.ValidString(text) || !utf8.ValidString(q) {
			return
		}
		limit = 1 + abs(limit)%1000
		d := graph.Analyze(&policy.Config{AllowUntyped: true}, "notes/n.md", "ws", text, 1, 1)
		terms := Terms(q)
		qt := map[string]int{}
		idfs := make([]float64, len(terms))
		for i, term := range terms {
			if term == "" {
				t.Fatalf("empty term from %q", q)
			}
			qt[term] = i
			idfs[i] = 1
		}
		s, ok := snippet(d, text, qt, idfs, limit, nil)
		if !ok {
			return
		}
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) > limit+6 {
			t.Fatalf("snippet %q over %d characters (+6)", s, limit)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
