package produce

import (
	"context"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// searchRecord is one node prepared for scoring; the lowered sources are
// computed once per snapshot so a warm query only scans.
type searchRecord struct {
	id, typ, path, title string
	fmText               string
	body                 string
	edges                []graph.Edge
	lowIDTitle, lowFM    string
	lowPath, lowBody     string
	lowEdges             string
}

// searchIndex holds the records of one snapshot and, per query term, what
// a scan of every (lowered) body found: a substring hit and the whole-word
// count. The body is the only large source, so its scans run on every core
// and are kept for the snapshot's life; the other sources are scanned per call.
type searchIndex struct {
	records []*searchRecord
	mu      sync.Mutex
	terms   map[string]*termStats
}

type termStats struct {
	sub   []bool  // the body holds the term as a substring
	count []int32 // \bterm\b occurrences in the body
}

// parallel runs fn over [0,n) split across the cores.
func parallel(n int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := lo + chunk
		if hi > n {
			hi = n
		}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, hi)
	}
	wg.Wait()
}

// stats returns the body scan of term, scanning on first use.
func (idx *searchIndex) stats(term string) *termStats {
	idx.mu.Lock()
	st, ok := idx.terms[term]
	idx.mu.Unlock()
	if ok {
		return st
	}
	st = &termStats{sub: make([]bool, len(idx.records)), count: make([]int32, len(idx.records))}
	parallel(len(idx.records), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			body := idx.records[i].lowBody
			if strings.Contains(body, term) {
				st.sub[i] = true
				st.count[i] = int32(countWord(body, term))
			}
		}
	})
	idx.mu.Lock()
	idx.terms[term] = st
	idx.mu.Unlock()
	return st
}

// newSearchIndex builds one record per node, in id order.
func newSearchIndex(s *snapshot.Snapshot) *searchIndex {
	ids := make([]string, 0, len(s.Graph.Nodes))
	for id := range s.Graph.Nodes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make(map[string][]graph.Edge)
	for _, e := range s.Graph.Edges {
		if !e.Broken {
			out[e.From] = append(out[e.From], graph.Edge{Field: e.Field, To: e.To})
		}
	}
	idx := &searchIndex{terms: map[string]*termStats{}}
	for _, id := range ids {
		n := s.Graph.Nodes[id]
		d := n.Doc
		title := d.Title
		if title == "" {
			title = id
		}
		var fm []string
		keys := make([]string, 0, len(d.FM.Fields))
		vals := map[string]any{}
		for _, f := range d.FM.Fields {
			keys = append(keys, f.Key)
			vals[f.Key] = f.Value
		}
		sort.Strings(keys)
		for _, k := range keys {
			fm = append(fm, k+": "+graph.Stringify(vals[k]))
		}
		var et []string
		for _, e := range out[id] {
			et = append(et, e.Field+" "+e.To)
		}
		r := &searchRecord{
			id: id, typ: n.Type, path: n.Path, title: title, fmText: strings.Join(fm, " "),
			body: d.Text, edges: out[id],
		}
		r.lowEdges = strings.Join(et, " ")
		idx.records = append(idx.records, r)
	}
	parallel(len(idx.records), func(lo, hi int) {
		for _, r := range idx.records[lo:hi] {
			r.lowIDTitle = guard.Lower(r.id + " " + r.title)
			r.lowFM = guard.Lower(r.fmText)
			r.lowPath = guard.Lower(r.path)
			r.lowBody = guard.Lower(r.body)
			r.lowEdges = guard.Lower(r.lowEdges)
		}
	})
	return idx
}

var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be by do does for from how i in is it of on or our the this to we what where which who why") {
		stopwords[w] = true
	}
}

var termRe = regexp.MustCompile(`[a-z0-9]+`)

// queryTerms are the ASCII [a-z0-9]+ runs of the lowered text without
// stopwords (all of them when nothing else is left); repeats count.
func queryTerms(text string) []string {
	raw := termRe.FindAllString(strings.ToLower(text), -1)
	var out []string
	for _, t := range raw {
		if !stopwords[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return raw
	}
	return out
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.N, r)
}

// countWord counts non-overlapping occurrences of term in s with a Unicode
// word boundary on both sides (Python's \bterm\b for a word-only term).
func countWord(s, term string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(s[i:], term)
		if j < 0 {
			return n
		}
		start := i + j
		end := start + len(term)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if (start == 0 || !guard.IsWordRune(before)) && (end == len(s) || !guard.IsWordRune(after)) {
			n++
			i = end
		} else {
			i = start + 1
		}
	}
}

func scoreSource(phrase string, terms []string, src string, pw, tw int) int {
	if src == "" {
		return 0
	}
	score := 0
	if phrase != "" && strings.Contains(src, phrase) {
		score += pw
	}
	for _, t := range terms {
		score += countWord(src, t) * tw
	}
	return score
}

// scoreBody is scoreSource for the body, from the term scans: a body can
// hold the phrase only if it holds every term of it as a substring.
func scoreBody(phrase string, stats []*termStats, rec int, low string) int {
	score := 0
	maybePhrase := phrase != "" && low != ""
	for _, st := range stats {
		score += int(st.count[rec]) * 10
		if !st.sub[rec] {
			maybePhrase = false
		}
	}
	if maybePhrase && strings.Contains(low, phrase) {
		score += 40
	}
	return score
}

// searchHit is one ranked, unprojected hit.
type searchHit struct {
	rec     *searchRecord
	score   int
	reasons []string
	snippet string
	hasSnip bool
}

type searchArgs struct {
	text                string
	k                   int
	types, paths, edges []string
	snippetChars        int
}

// search ranks the records for args, in (-score, path, id) order, top k.
func (idx *searchIndex) search(ctx context.Context, a searchArgs) ([]searchHit, error) {
	phrase := guard.TrimSpace(strings.ToLower(a.text))
	terms := queryTerms(a.text)
	typeSet := map[string]bool{}
	for _, t := range a.types {
		typeSet[t] = true
	}
	globs := make([]*regexp.Regexp, len(a.paths))
	for i, p := range a.paths {
		globs[i] = fnmatchRegexp(strings.ReplaceAll(p, `\`, "/"))
	}
	var stats []*termStats
	for _, t := range terms {
		stats = append(stats, idx.stats(t))
	}
	// Score the records on every core; each chunk keeps its own top k, so the
	// merge only sorts a few hits.
	chunks := make([][]searchHit, runtime.GOMAXPROCS(0)+1)
	var chunkMu sync.Mutex
	next := 0
	parallel(len(idx.records), func(lo, hi int) {
		var local []searchHit
		for i := lo; i < hi; i++ {
			if i%64 == 0 && ctx.Err() != nil {
				return
			}
			r := idx.records[i]
			if len(typeSet) > 0 && !typeSet[r.typ] {
				continue
			}
			if len(globs) > 0 && !anyMatch(globs, r.path) {
				continue
			}
			if !edgesMatch(r.edges, a.edges) {
				continue
			}
			h := searchHit{rec: r}
			for _, src := range []struct {
				text   string
				pw, tw int
				reason string
			}{
				{r.lowIDTitle, 120, 40, "title/id match"},
				{r.lowFM, 80, 24, "frontmatter match"},
				{r.lowPath, 60, 16, "path match"},
				{r.lowBody, 40, 10, "body match"},
				{r.lowEdges, 30, 8, "edge context match"},
			} {
				var s int
				if src.reason == "body match" {
					s = scoreBody(phrase, stats, i, r.lowBody)
				} else {
					s = scoreSource(phrase, terms, src.text, src.pw, src.tw)
				}
				if s > 0 {
					h.score += s
					h.reasons = append(h.reasons, src.reason)
				}
			}
			if len(a.edges) > 0 {
				h.score += 20 * len(a.edges)
				h.reasons = append(h.reasons, "edge filter match")
			}
			if h.score > 0 {
				local = keepTop(local, h, a.k)
			}
		}
		chunkMu.Lock()
		chunks[next] = local
		next++
		chunkMu.Unlock()
	})
	if err := cancelled(ctx); err != nil {
		return nil, err
	}
	var hits []searchHit
	for _, c := range chunks {
		hits = append(hits, c...)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hitLess(hits[i], hits[j]) })
	if len(hits) > a.k {
		hits = hits[:a.k]
	}
	for i := range hits {
		hits[i].snippet, hits[i].hasSnip = bestSnippet(hits[i].rec, phrase, terms, a.snippetChars)
	}
	return hits, nil
}

// hitLess is the rank order: score descending, then path, then id.
func hitLess(a, b searchHit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.rec.path != b.rec.path {
		return a.rec.path < b.rec.path
	}
	return a.rec.id < b.rec.id
}

// keepTop inserts h into the rank-ordered top, keeping at most k.
func keepTop(top []searchHit, h searchHit, k int) []searchHit {
	if len(top) == k && !hitLess(h, top[k-1]) {
		return top
	}
	i := sort.Search(len(top), func(i int) bool { return hitLess(h, top[i]) })
	if len(top) < k {
		top = append(top, searchHit{})
	}
	copy(top[i+1:], top[i:len(top)-1])
	top[i] = h
	return top
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

// bestSnippet is a window of at most limit characters of the body, its
// Python whitespace collapsed (a pasted NBSP must not make the snippet
// unprintable), around the earliest match, with "..." where it was cut.
func bestSnippet(r *searchRecord, phrase string, terms []string, limit int) (string, bool) {
	if limit <= 0 {
		return "", false
	}
	src := r.body
	if src == "" {
		src = r.fmText
	}
	if src == "" {
		src = r.title
	}
	collapsed := guard.CollapseSpace(src)
	if collapsed == "" {
		return "", false
	}
	// Lowering maps rune to rune, so indexes into low are indexes into text.
	text, low := []rune(collapsed), []rune(guard.Lower(collapsed))
	start := -1
	for _, needle := range append([]string{phrase}, terms...) {
		if needle == "" {
			continue
		}
		if p := runeIndex(low, []rune(needle)); p >= 0 && (start < 0 || p < start) {
			start = p
		}
	}
	if start < 0 {
		start = 0
	}
	if len(text) <= limit {
		return string(text), true
	}
	left := start - limit/2
	if left < 0 {
		left = 0
	}
	right := left + limit
	if right > len(text) {
		right = len(text)
	}
	if right-left < limit {
		left = right - limit
		if left < 0 {
			left = 0
		}
	}
	out := guard.TrimSpace(string(text[left:right]))
	if left > 0 {
		out = "..." + out
	}
	if right < len(text) {
		out += "..."
	}
	return out, true
}

func runeIndex(hay, needle []rune) int {
	if len(needle) == 0 || len(needle) > len(hay) {
		return -1
	}
	for i := 0; i+len(needle) <= len(hay); i++ {
		if hay[i] == needle[0] {
			match := true
			for j := 1; j < len(needle); j++ {
				if hay[i+j] != needle[j] {
					match = false
					break
				}
			}
			if match {
				return i
			}
		}
	}
	return -1
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
func project(hits []searchHit) ([]projected, error) {
	out := make([]projected, 0, len(hits))
	for _, h := range hits {
		r := h.rec
		if !guard.SafeRelPath(r.path, limits.MaxPathChars) || !guard.OutputSafe(r.id, 512) {
			return nil, unavailableResult()
		}
		p := projected{ID: r.id, Path: r.path, Score: h.score, Reasons: []string{}, Edges: []Edge{}}
		p.Title = r.title
		if !guard.OutputSafe(p.Title, limits.MaxTitleChars) {
			p.Title = r.id
		}
		if r.typ != "" && guard.OutputSafe(r.typ, 128) {
			t := r.typ
			p.Type = &t
		}
		if h.hasSnip && guard.OutputSafe(h.snippet, limits.MaxSnippetChars+6) {
			s := h.snippet
			p.Snippet = &s
		}
		for _, e := range r.edges {
			if !guard.OutputSafe(e.Field, limits.MaxFieldChars) || !guard.OutputSafe(e.To, limits.MaxRefTargetChars) {
				return nil, unavailableResult()
			}
			p.Edges = append(p.Edges, Edge{e.Field, e.To})
		}
		for _, rs := range h.reasons {
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
