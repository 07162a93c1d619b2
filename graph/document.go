package graph

import (
	"errors"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Edge is one ref from a document's frontmatter.
type Edge struct {
	Field string `json:"field"`
	To    string `json:"to"`
	Line  int    `json:"-"`
}

// Document is one admitted, analysed Markdown file. It holds no part of
// the file's text (its strings are copies), so the text is garbage once
// analysed: a producer that needs the bytes reads them again under Stamp
// and Digest (snapshot.Text).
type Document struct {
	Path    string
	Type    string // "" when untyped
	ID      string
	Title   string
	Created string
	Updated string
	// Digest is the hex SHA-256 of the bytes read (after UTF-8 repair) and
	// Stamp the identity they were read under; both set by the snapshot.
	Digest      string
	Stamp       workspace.Info
	FM          *Frontmatter
	Edges       []Edge
	Findings    []Finding
	EdgeOmitted int
}

// TypeFor resolves the type of rel by its nearest ancestor folder: for each
// directory from the document's own up to (not including) the root, the
// exact relative path, then "./" plus it, then its basename.
func TypeFor(cfg *policy.Config, rel string) string {
	dir := rel
	for {
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			return ""
		}
		dir = dir[:i]
		base := dir[strings.LastIndexByte(dir, '/')+1:]
		for _, key := range []string{dir, "./" + dir, base} {
			if t, ok := cfg.FolderMap[key]; ok {
				return t
			}
		}
	}
}

// Slugify lowercases and turns every run of characters other than
// [a-z0-9._-] into "-". Every byte of a multi-byte rune is such a
// character, so a byte loop is exact.
func Slugify(s string) string {
	s = guard.Lower(s)
	b := make([]byte, 0, len(s))
	inRun := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		keep := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		switch {
		case keep:
			b = append(b, c)
		case !inRun:
			b = append(b, '-')
		}
		inRun = !keep
	}
	if out := strings.Trim(string(b), "-"); out != "" {
		return out
	}
	return "untitled"
}

func stripExt(name string) string {
	l := strings.ToLower(name)
	switch {
	case strings.HasSuffix(l, ".markdown"):
		return name[:len(name)-len(".markdown")]
	case strings.HasSuffix(l, ".md"):
		return name[:len(name)-len(".md")]
	}
	return name
}

// DeriveID is the document id: index-like files (readme, index, _index, or
// named as their folder) take the folder's slug, others their own.
func DeriveID(rel, rootName string) string {
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	parent := rootName
	if dir != "" {
		parent = dir[strings.LastIndexByte(dir, '/')+1:]
	}
	base := stripExt(name)
	lb := strings.ToLower(base)
	if lb == "readme" || lb == "index" || lb == "_index" || strings.EqualFold(base, parent) {
		return Slugify(parent)
	}
	return Slugify(base)
}

// DeriveTitle is the first "# " heading of the body outside fenced code
// blocks, stripped and trimmed to 512 characters, else name (the file name
// as written, without its extension). A heading of only spaces gives "",
// which search shows as the id, as the reference does.
func DeriveTitle(body, name string) string {
	// The first heading is almost always near the top: look for one
	// heading at a time (listing them all cost a third of a cold call), and
	// find the fences only in a body that has a fence mark at all.
	var fences [][2]int
	if strings.Contains(body, "```") || strings.Contains(body, "~~~") {
		fences = fencedRanges(body)
	}
	for off := 0; off < len(body); {
		at, g0, g1 := nextHeading(body, off)
		if at < 0 {
			break
		}
		if !inRanges(fences, at) {
			return TrimText(guard.TrimSpace(body[g0:g1]), limits.MaxTitleChars)
		}
		// The match ends before a line break (or at the end), so the rest
		// never starts a line the search would take for a new one.
		off = g1
	}
	return name
}

// nextHeading is the first match at or after from of the reference's
// r"^#\s+(.+)$" (re.M, Python's \s): the index of its '#' and the bounds of
// its group, or at -1. from is 0 or the end of an earlier match. It finds
// what Go's regexp would (headingRe in the tests, FuzzDeriveTitleAgrees)
// without running one: the regexp was a fifth of Analyze in a cold call.
func nextHeading(body string, from int) (at, g0, g1 int) {
	for i := from; i < len(body); i++ {
		j := strings.IndexByte(body[i:], '#')
		if j < 0 {
			break
		}
		if i += j; i > 0 && body[i-1] != '\n' {
			continue
		}
		// \s+ takes the longest run of spaces (line breaks too) that
		// leaves (.+) a first rune other than a line break, and (.+)$ then
		// runs to the end of that line.
		p := -1
		k := i + 1
		for k < len(body) {
			r, w := utf8.DecodeRuneInString(body[k:])
			if !guard.IsSpace(r) {
				break
			}
			if k > i+1 && body[k] != '\n' {
				p = k
			}
			k += w
		}
		if k > i+1 && k < len(body) {
			p = k
		}
		if p < 0 {
			continue
		}
		e := strings.IndexByte(body[p:], '\n')
		if e < 0 {
			return i, p, len(body)
		}
		return i, p, p + e
	}
	return -1, 0, 0
}

// fencedRanges are the byte ranges of the fenced code blocks of body: from
// a line of three or more backticks or tildes (indented at most three
// spaces) to a line of at least as many of the same, or the end.
func fencedRanges(body string) [][2]int {
	var out [][2]int
	open, start := "", 0
	for i := 0; i < len(body); {
		end := strings.IndexByte(body[i:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += i
		}
		line := strings.TrimRight(body[i:end], "\r")
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) <= 3 {
			if fence := fenceOf(trimmed); fence != "" {
				switch {
				case open == "":
					open, start = fence, i
				case fence[0] == open[0] && len(fence) >= len(open) && strings.TrimSpace(trimmed[len(fence):]) == "":
					out = append(out, [2]int{start, end})
					open = ""
				}
			}
		}
		i = end + 1
	}
	if open != "" {
		out = append(out, [2]int{start, len(body)})
	}
	return out
}

func fenceOf(line string) string {
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return line[:n]
}

func inRanges(rs [][2]int, at int) bool {
	for _, r := range rs {
		if at >= r[0] && at < r[1] {
			return true
		}
	}
	return false
}

// TrimText keeps s within max code points, ending a cut with "...".
func TrimText(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return guard.TrimRightSpace(string(r[:max-3])) + "..."
}

func localDate(ns int64) string {
	if ns <= 0 {
		return "1970-01-01"
	}
	return time.Unix(0, ns).Format("2006-01-02")
}

// Analyze builds the document model of one admitted file and all of its
// findings except W220, which needs the whole graph.
func Analyze(cfg *policy.Config, rel, rootName, text string, mtime, ctime int64) *Document {
	text = strings.TrimPrefix(text, "\ufeff")
	d := &Document{Path: rel, Type: TypeFor(cfg, rel)}
	fmText, body, unclosed, has := Split(text)
	// Copies: a substring would keep the whole text alive (or, in a reused
	// read buffer, change under the document).
	fmText = strings.Clone(fmText)
	d.ID = DeriveID(rel, rootName)
	d.Title = strings.Clone(DeriveTitle(body, stripExt(rel[strings.LastIndexByte(rel, '/')+1:])))
	created := mtime
	if ctime > 0 && ctime < created {
		created = ctime
	}
	d.Updated = localDate(mtime)
	if d.Created = d.Updated; created != mtime {
		d.Created = localDate(created)
	}
	if unclosed {
		d.FM = &Frontmatter{byKey: map[string]int{}}
		d.Findings = append(d.Findings, finding(rel, 1, "E001", whyUnclosed))
		return d
	}
	if has {
		fm, err := ParseFrontmatter(fmText)
		if err != nil {
			d.FM = &Frontmatter{byKey: map[string]int{}}
			fe := &ErrFrontmatter{Line: 2, Why: whySyntax}
			errors.As(err, &fe)
			d.Findings = append(d.Findings, finding(rel, fe.Line, "E001", fe.Why))
			return d
		}
		d.FM = fm
	} else {
		d.FM = &Frontmatter{byKey: map[string]int{}}
	}
	typed := d.Type != ""
	if !typed && !cfg.AllowUntyped {
		d.Findings = append(d.Findings, finding(rel, 1, "W201", "no type's folder holds this path; move it into a typed folder"))
	}
	var td *policy.TypeDef
	if typed {
		td = cfg.Types[d.Type]
	}
	for _, k := range requiredKeys(cfg, td) {
		v, ok := d.FM.Get(k)
		if !ok {
			d.Findings = append(d.Findings, finding(rel, 1, "E101", fieldName(k)))
			continue
		}
		if s, isStr := v.(string); v == nil || (isStr && s == "") {
			d.Findings = append(d.Findings, finding(rel, d.FM.Fields[d.FM.byKey[k]].Line, "E102", fieldName(k)))
		}
	}
	for _, f := range d.FM.Fields {
		if slices.Contains(cfg.Derive, f.Key) {
			if (typed || !cfg.AllowUntyped) && Stringify(f.Value) == d.derived(f.Key) {
				d.Findings = append(d.Findings, finding(rel, f.Line, "W210", redundantDetail(f.Key)))
			}
			continue
		}
		spec := specOf(cfg, td, f.Key)
		if spec == "" {
			if typed {
				d.Findings = append(d.Findings, finding(rel, f.Line, "W202", unknownDetail(f.Key, d.Type)))
			}
			continue
		}
		if spec == "ref" || spec == "ref-list" {
			d.addRefs(f, spec)
			continue
		}
		// A null is E102 when required and fine when optional; an empty
		// string is checked like any value, so `status: ""` is E102 and E103.
		if f.Value == nil {
			continue
		}
		if !CheckSpec(spec, f.Value) {
			d.Findings = append(d.Findings, finding(rel, f.Line, "E103", invalidDetail(f.Key, spec)))
		}
	}
	return d
}

// requiredKeys are the fields a document of type td (nil: untyped) must
// have, in order: the base's and the type's. Looked up per field (specOf)
// instead of merged into maps per document, which cost every read a few
// maps for a handful of keys.
func requiredKeys(cfg *policy.Config, td *policy.TypeDef) []string {
	keys := slices.AppendSeq(make([]string, 0, len(cfg.Required)+4), maps.Keys(cfg.Required))
	if td != nil {
		for k := range td.Required {
			if _, dup := cfg.Required[k]; !dup {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// specOf is the spec of the field key for a document of type td (nil:
// untyped), "" when neither the base nor the type names it: required
// before optional, the type's before the base's within each.
func specOf(cfg *policy.Config, td *policy.TypeDef, key string) string {
	if td != nil {
		if s, ok := td.Required[key]; ok {
			return s
		}
	}
	if s, ok := cfg.Required[key]; ok {
		return s
	}
	if td != nil {
		if s, ok := td.Optional[key]; ok {
			return s
		}
	}
	return cfg.Optional[key]
}

// derived is the value of a field the document derives (id, slug, title,
// created, updated), "" for any other key.
func (d *Document) derived(key string) string {
	switch key {
	case "id", "slug":
		return d.ID
	case "title":
		return d.Title
	case "created":
		return d.Created
	case "updated":
		return d.Updated
	}
	return ""
}

// addRefs records the edges of a ref or ref-list field. Like the
// reference, a list in a ref or a scalar in a ref-list keeps its edges and
// adds one E103; an unsafe or absolute target is an E103 and an omitted edge.
func (d *Document) addRefs(f Field, spec string) {
	var targets []any
	list, isList := f.Value.([]any)
	switch {
	case f.Value == nil:
		return
	case isList:
		targets = list
	default:
		targets = []any{f.Value}
	}
	bad := isList != (spec == "ref-list")
	keySafe := guard.OutputSafe(f.Key, limits.MaxFieldChars)
	for _, t := range targets {
		s, ok := t.(string)
		if !ok || !keySafe || !guard.OutputSafe(s, limits.MaxRefTargetChars) || guard.Absolute(s) {
			d.EdgeOmitted++
			bad = true
			continue
		}
		if len(d.Edges) >= limits.MaxEdgesPerDocument {
			d.EdgeOmitted++
			continue
		}
		if !isSlug(s) {
			bad = true
		}
		d.Edges = append(d.Edges, Edge{Field: f.Key, To: s, Line: f.Line})
	}
	if bad {
		d.Findings = append(d.Findings, finding(d.Path, f.Line, "E103", invalidDetail(f.Key, spec)))
	}
}

// UnresolvedFindings are the W220 findings of d against the known ids.
func (d *Document) UnresolvedFindings(ids map[string]bool) []Finding {
	var out []Finding
	for _, e := range d.Edges {
		if !ids[e.To] {
			out = append(out, finding(d.Path, e.Line, "W220", unresolvedDetail(e)))
		}
	}
	return out
}

// AmbiguousFindings are the W221 findings of d: refs to an id that several
// documents share (notes of one file name in different folders), given the
// number of documents per id. A ref cannot say which one it means.
func (d *Document) AmbiguousFindings(holders map[string]int) []Finding {
	var out []Finding
	for _, e := range d.Edges {
		if n := holders[e.To]; n > 1 {
			out = append(out, finding(d.Path, e.Line, "W221", ambiguousDetail(e, n)))
		}
	}
	return out
}

// GraphEdge is one edge with its broken flag.
type GraphEdge struct {
	From, Field, To string
	Broken          bool
}

// Graph is the typed graph of a snapshot.
type Graph struct {
	// IDs are its nodes: the ids its documents have. Never changed once
	// built: the graph after an edit that keeps every id shares it.
	IDs   map[string]bool
	docs  []*Document
	once  sync.Once
	edges []GraphEdge
}

// Build builds the graph of documents (already in path order). Its edges
// are listed on first use: every snapshot needs the nodes, few the sorted
// edges, and a snapshot taken after one edit must not pay for them all.
func Build(docs []*Document) *Graph {
	g := &Graph{IDs: make(map[string]bool, len(docs)), docs: docs}
	for _, d := range docs {
		g.IDs[d.ID] = true
	}
	return g
}

// Replace is Build(docs) for docs that are g's documents with each of
// old replaced in place by the document at the same index of by. When
// every replacement keeps its id, the nodes are g's own: an edit costs no
// pass over every node. Otherwise it builds the graph afresh.
func (g *Graph) Replace(docs, old, by []*Document) *Graph {
	if len(old) != len(by) {
		return Build(docs)
	}
	for i, o := range old {
		if o == nil || by[i] == nil || o.ID != by[i].ID {
			return Build(docs)
		}
	}
	return &Graph{IDs: g.IDs, docs: docs}
}

// Edges are every document's edges, sorted by source id, field and
// target, each marked broken when no document has its target as its id.
func (g *Graph) Edges() []GraphEdge {
	g.once.Do(func() {
		for _, d := range g.docs {
			for _, e := range d.Edges {
				ok := g.IDs[e.To]
				g.edges = append(g.edges, GraphEdge{From: d.ID, Field: e.Field, To: e.To, Broken: !ok})
			}
		}
		sort.Slice(g.edges, func(i, j int) bool {
			a, b := g.edges[i], g.edges[j]
			if a.From != b.From {
				return a.From < b.From
			}
			if a.Field != b.Field {
				return a.Field < b.Field
			}
			return a.To < b.To
		})
	})
	return g.edges
}
