package capsule

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Bounds of what HEAD contributes: matching files, and lines per file.
const (
	maxMatchFiles = 8
	maxFileLines  = 3
	maxExcerpt    = 200 // code points of a matching line
)

// headMatches is what `git grep` of HEAD found for a question's terms.
type headMatches struct {
	terms   []string
	matches []match
	why     string // why the search is incomplete; "" when it is not
}

// match is one privacy-admitted line of HEAD that holds a question term.
type match struct {
	path, term, excerpt string
	line                int
}

// grepHead greps HEAD for the terms and keeps only matches in paths the
// privacy policy admits now: at most maxMatchFiles files and maxFileLines
// lines each, the files in UTF-16 order.
func grepHead(ctx context.Context, ws *workspace.Workspace, co *checkout, terms []string) (*headMatches, error) {
	h := &headMatches{terms: terms}
	switch {
	case !co.git.ok || !co.head.ok:
		h.why = "dirty_state_unknown"
		return h, nil
	case len(terms) == 0:
		return h, nil
	}
	rev := co.head.value
	args := []string{"grep", "-z", "-n", "-I", "-i", "-F", "--no-color"}
	for _, t := range terms {
		args = append(args, "-e", t)
	}
	out, code, err := gitOut(ctx, ws.Root(), append(args, rev, "--")...)
	switch {
	case err != nil:
		return nil, err
	case code == 1: // nothing matched
		return h, nil
	case code != 0:
		h.why = "content_search_unavailable"
		return h, nil
	}
	byPath, paths := parseGrep(out, rev+":", terms)
	admitted, err := admitted(ctx, ws, paths)
	if err != nil {
		return nil, err
	}
	for _, p := range admitted[:min(len(admitted), maxMatchFiles)] {
		h.matches = append(h.matches, byPath[p]...)
	}
	return h, nil
}

// parseGrep reads `git grep -z -n` of one revision (each line prefixed
// rev:path NUL line NUL text): the first maxFileLines matches of each path
// safe to name, and the paths in the order git listed them. A line of any
// other shape is not a match.
func parseGrep(out, prefix string, terms []string) (map[string][]match, []string) {
	byPath := map[string][]match{}
	var paths []string
	for _, line := range strings.Split(out, "\n") {
		fields := strings.SplitN(line, "\x00", 3)
		if len(fields) != 3 || !strings.HasPrefix(fields[0], prefix) {
			continue
		}
		p := strings.TrimPrefix(fields[0], prefix)
		n, err := strconv.Atoi(fields[1])
		if err != nil || !guard.SafeRelPath(p, limits.MaxPathChars) {
			continue
		}
		if _, ok := byPath[p]; !ok {
			paths = append(paths, p)
			byPath[p] = nil
		}
		if len(byPath[p]) < maxFileLines {
			byPath[p] = append(byPath[p], match{path: p, term: firstTerm(fields[2], terms), line: n, excerpt: excerpt(fields[2])})
		}
	}
	return byPath, paths
}

// admitted are the paths the privacy policy admits now, in UTF-16 order:
// only a path that still exists as a regular single-link file with a name
// that does not look secret is asked about at all.
func admitted(ctx context.Context, ws *workspace.Workspace, paths []string) ([]string, error) {
	var candidates []string
	for _, p := range paths {
		// A path that cannot be described now is one the policy cannot judge.
		if info, err := ws.Lstat(p); err == nil && info.IsRegular() && info.Nlink == 1 && !policy.Sensitive(p) {
			candidates = append(candidates, p)
		}
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	adm, err := policy.Admit(ctx, ws, candidates, policy.Options{})
	if err != nil {
		return nil, err
	}
	sort.Slice(candidates, func(i, j int) bool { return guard.Less(candidates[i], candidates[j]) })
	var out []string
	for _, p := range candidates {
		if adm.Admits(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// firstTerm is the first of terms the line holds, case folded.
func firstTerm(line string, terms []string) string {
	low := strings.ToLower(line)
	for _, t := range terms {
		if strings.Contains(low, t) {
			return t
		}
	}
	return ""
}

func excerpt(s string) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) > maxExcerpt {
		return string(r[:maxExcerpt]) + "…"
	}
	return s
}

// governedTerms are the Unicode word runs of the question, without
// governedStop or one-letter ASCII words, deduplicated, at most 16.
//
// One of three tokenizers, each matching what it feeds: search.Terms ranks
// notes (stems, compounds, identifiers); governedTerms are the fixed strings
// the capsule's `git grep -F -i` looks for in HEAD, so they stay whole
// lower-cased words, as the reference greps them; selectionTerms (claims.go)
// only pick which observed facts a question is about.
func governedTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), notWordRune) {
		if governedStop[w] || (len(w) == 1 && w[0] < 0x80) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == 16 {
			break
		}
	}
	return out
}

func notWordRune(r rune) bool { return !guard.IsWordRune(r) || r == '_' }

// governedStop are the reference's stopwords, which governed
// observation keeps.
var governedStop = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true, "do": true,
	"does": true, "for": true, "from": true, "how": true, "i": true, "in": true, "is": true, "it": true, "of": true,
	"on": true, "or": true, "our": true, "the": true, "this": true, "to": true, "we": true, "what": true, "where": true,
	"which": true, "who": true, "why": true,
}
