package produce

import (
	"regexp"
	"sort"
	"strings"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/search"
)

type searchArgs struct {
	text                string
	k                   int
	types, paths, edges []string
	snippetChars        int
}

// query is the search of a, with its filters.
func (a searchArgs) query() search.Query {
	typeSet := map[string]bool{}
	for _, t := range a.types {
		typeSet[t] = true
	}
	globs := make([]*regexp.Regexp, len(a.paths))
	for i, p := range a.paths {
		globs[i] = fnmatchRegexp(strings.ReplaceAll(p, `\`, "/"))
	}
	q := search.Query{
		Text: a.text, K: a.k, SnippetChars: a.snippetChars, EdgeFilters: len(a.edges),
		Safe: func(s string) bool { return guard.OutputSafe(s, limits.MaxSnippetChars+6) },
	}
	if len(a.types)+len(a.paths)+len(a.edges) > 0 {
		q.Keep = func(d *graph.Document, edges []graph.Edge) bool {
			return (len(typeSet) == 0 || typeSet[d.Type]) && (len(globs) == 0 || anyMatch(globs, d.Path)) && edgesMatch(edges, a.edges)
		}
	}
	return q
}

func anyMatch(globs []*regexp.Regexp, s string) bool {
	for _, g := range globs {
		if g.MatchString(s) {
			return true
		}
	}
	return false
}

// edgesMatch requires every filter "field[:target]" to match some edge; an
// empty field or target matches anything.
func edgesMatch(edges []graph.Edge, filters []string) bool {
	for _, f := range filters {
		field, target, _ := strings.Cut(f, ":")
		field, target = guard.TrimSpace(field), guard.TrimSpace(target)
		ok := false
		for _, e := range edges {
			if (field == "" || e.Field == field) && (target == "" || e.To == target) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// fnmatchRegexp translates a case-sensitive fnmatch glob: * and ? match any
// character including "/", [seq] and [!seq] are classes.
func fnmatchRegexp(glob string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	rs := []rune(glob)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(rs) && rs[j] == '!' {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				b.WriteString(`\[`)
				continue
			}
			body := rs[i+1 : j]
			b.WriteByte('[')
			if len(body) > 0 && body[0] == '!' {
				b.WriteByte('^')
				body = body[1:]
			}
			for _, r := range body {
				if r == '\\' || r == ']' || r == '[' || r == '^' {
					b.WriteByte('\\')
				}
				b.WriteRune(r)
			}
			b.WriteByte(']')
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return regexp.MustCompile(`^\x00never$`)
	}
	return re
}

// Edge is one public edge.
type Edge struct {
	Field string `json:"field"`
	To    string `json:"to"`
}

// projected is a hit after the public projection.
type projected struct {
	ID      string
	Type    *string
	Path    string
	Title   string
	Score   int
	Snippet *string
	Reasons []string
	Edges   []Edge
}

func unavailableResult() error {
	return reasonProducer("a result failed the public projection")
}

// project applies the public projection and re-sorts in UTF-16 order.
func project(hits []search.Hit) ([]projected, error) {
	out := make([]projected, 0, len(hits))
	for _, h := range hits {
		d := h.Doc
		if !guard.SafeRelPath(d.Path, limits.MaxPathChars) || !guard.OutputSafe(d.ID, 512) {
			return nil, unavailableResult()
		}
		p := projected{ID: d.ID, Path: d.Path, Score: h.Score, Reasons: []string{}, Edges: []Edge{}}
		p.Title = d.Title
		if p.Title == "" || !guard.OutputSafe(p.Title, limits.MaxTitleChars) {
			p.Title = d.ID
		}
		if d.Type != "" && guard.OutputSafe(d.Type, 128) {
			t := d.Type
			p.Type = &t
		}
		if h.HasSnippet && guard.OutputSafe(h.Snippet, limits.MaxSnippetChars+6) {
			s := h.Snippet
			p.Snippet = &s
		}
		for _, e := range h.Edges {
			if !guard.OutputSafe(e.Field, limits.MaxFieldChars) || !guard.OutputSafe(e.To, limits.MaxRefTargetChars) {
				return nil, unavailableResult()
			}
			p.Edges = append(p.Edges, Edge{e.Field, e.To})
		}
		for _, rs := range h.Reasons {
			if guard.SafeText(rs, 64) {
				p.Reasons = append(p.Reasons, rs)
			}
		}
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if c := guard.Compare(a.Path, b.Path); c != 0 {
			return c < 0
		}
		return guard.Less(a.ID, b.ID)
	})
	return out, nil
}
