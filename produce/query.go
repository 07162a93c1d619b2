package produce

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

func reasonProducer(msg string) error { return reason.New(reason.ProducerUnavailable, msg) }

func invalid(msg string) error { return reason.New(reason.InvalidArguments, msg) }

// outOfRange refuses a numeric argument, naming the bounds from package
// limits so the message cannot drift from the check.
func outOfRange(arg string, lo, hi int) error {
	return invalid(fmt.Sprintf("%s must be between %d and %d", arg, lo, hi))
}

// Filters are the three query filter lists.
type Filters struct {
	Type []string `json:"type"`
	Path []string `json:"path"`
	Edge []string `json:"edge"`
}

// QueryArgs are vivary_query's inputs.
type QueryArgs struct {
	Text         string
	Limit        int // 1..20
	Filters      Filters
	SnippetChars int // 0..1000
	Explain      bool
	// Spelling is how a refusal names a filter: path_filters[i] or --path.
	Spelling Spelling
}

// QueryHit is one query result.
type QueryHit struct {
	ID      string   `json:"id"`
	Type    *string  `json:"type"`
	Path    string   `json:"path"`
	Title   string   `json:"title"`
	Score   int      `json:"score"`
	Snippet *string  `json:"snippet"`
	Reasons []string `json:"reasons"`
	Edges   []Edge   `json:"edges"`
}

// QueryResult is vivary.query-result/v0.
type QueryResult struct {
	Schema               string     `json:"schema"`
	Query                string     `json:"query"`
	K                    int        `json:"k"`
	Filters              Filters    `json:"filters"`
	Results              []QueryHit `json:"results"`
	Complete             bool       `json:"complete"`
	WorkspaceFingerprint string     `json:"workspace_fingerprint"`
	Omissions            []Omission `json:"omissions"`
	// Beyond the schema, for a person: type filters the policy does not
	// define, and the types it does, sorted.
	UnknownTypes []string `json:"-"`
	KnownTypes   []string `json:"-"`
}

// Schema ids of the query and find results.
const (
	QuerySchemaID = "vivary.query-result/v0"
	FindSchemaID  = "vivary.find-result/v0"
)

// ValidateText checks a question or query text: non-empty after trimming, at
// most 4,096 code points (invalid_arguments), and safe to search with: no
// control characters, credential, absolute path or the root (path_refused).
func ValidateText(arg, text, root string) error {
	if guard.TrimSpace(text) == "" {
		return invalid(arg + " must not be empty or whitespace")
	}
	if guard.Len(text) > limits.MaxQueryChars {
		return invalid(fmt.Sprintf("%s is longer than %d characters", arg, limits.MaxQueryChars))
	}
	if !guard.OutputSafe(text, limits.MaxQueryChars) || guard.ContainsRoot(text, root) {
		return reason.New(reason.PathRefused, arg+" is refused: it holds a control character, a credential or an absolute path; leave those out and ask again")
	}
	return nil
}

// ValidateFilters checks the three filter lists. A refusal names the
// value (when it is safe to show) and the rule it broke.
func ValidateFilters(f Filters, s Spelling, root string) error {
	lists := []struct {
		name string
		vals []string
		max  int
	}{{"type_filters", f.Type, limits.MaxTypeFilterChars}, {"path_filters", f.Path, limits.MaxPathChars}, {"edge_filters", f.Edge, limits.MaxEdgeFilterChars}}
	for _, l := range lists {
		if len(l.vals) > limits.MaxFilters {
			return invalid(fmt.Sprintf("%s holds more than %d values", s.list(l.name), limits.MaxFilters))
		}
		first := map[string]int{}
		for i, v := range l.vals {
			at := s.item(l.name, i, len(l.vals))
			if j, dup := first[v]; dup {
				return invalid(at + " repeats " + s.item(l.name, j, len(l.vals)) + "; give each value once")
			}
			first[v] = i
			if v == "" || guard.Len(v) > l.max {
				return invalid(at + " must be non-empty and at most " + strconv.Itoa(l.max) + " characters")
			}
			switch l.name {
			case "type_filters":
				if !guard.OutputSafe(v, l.max) {
					return invalid(at + " is not a type name that can be shown; use a type name of the workspace policy")
				}
			case "path_filters":
				// A glob's shape is its path's, with its wildcards as letters.
				rule := textRule(v, l.max)
				if rule == "" && !guard.OutputSafe(v, l.max) {
					rule = "holds a credential or a machine path; leave it out"
				}
				if rule == "" {
					rule = guard.PathShapeProblem(strings.NewReplacer("*", "x", "?", "x").Replace(v))
				}
				if rule == "" && policy.Sensitive(v) {
					rule = ruleSecret
				}
				if rule != "" {
					return s.pathRefused(l.name, i, l.vals, root, rule)
				}
			case "edge_filters":
				// As in the reference, a ':' must have a target after it, and
				// an empty field or target is refused like an unsafe one.
				field, target, hasTarget := strings.Cut(v, ":")
				field, target = guard.TrimSpace(field), guard.TrimSpace(target)
				if !guard.OutputSafe(field, limits.MaxFieldChars) ||
					(hasTarget && (!guard.OutputSafe(target, limits.MaxRefTargetChars) || guard.Absolute(target))) {
					return reason.New(reason.PathRefused, at+" is refused: write FIELD or FIELD:TARGET, both printable, "+
						"without a credential, and the target not an absolute path")
				}
			}
		}
	}
	return nil
}

func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// Query returns the bounded, filtered typed-graph matches for text.
func (r *Reader) Query(ctx context.Context, a QueryArgs) (*QueryResult, error) {
	if err := ValidateText("text", a.Text, r.ws.Root()); err != nil {
		return nil, err
	}
	if a.Limit < 1 || a.Limit > limits.MaxResults {
		return nil, outOfRange("limit", 1, limits.MaxResults)
	}
	if a.SnippetChars < 0 || a.SnippetChars > limits.MaxSnippetChars {
		return nil, outOfRange("snippet_chars", 0, limits.MaxSnippetChars)
	}
	if err := ValidateFilters(a.Filters, a.Spelling, r.ws.Root()); err != nil {
		return nil, err
	}
	if err := r.refuseIgnored(ctx, a.Spelling, "path_filters", a.Filters.Path); err != nil {
		return nil, err
	}
	snap, proj, err := r.ranked(ctx, searchArgs{text: a.Text, k: a.Limit, types: a.Filters.Type, paths: a.Filters.Path, edges: a.Filters.Edge, snippetChars: a.SnippetChars})
	if err != nil {
		return nil, err
	}
	res := &QueryResult{
		Schema: QuerySchemaID, Query: a.Text, K: a.Limit,
		Filters:  Filters{orEmpty(a.Filters.Type), orEmpty(a.Filters.Path), orEmpty(a.Filters.Edge)},
		Results:  []QueryHit{},
		Complete: snap.Complete, WorkspaceFingerprint: snap.Fingerprint, Omissions: snap.Omissions,
	}
	for _, t := range a.Filters.Type {
		if _, ok := snap.Config.Types[t]; !ok {
			res.UnknownTypes = append(res.UnknownTypes, t)
		}
	}
	if len(res.UnknownTypes) > 0 {
		res.KnownTypes = slices.Sorted(maps.Keys(snap.Config.Types))
	}
	for _, p := range proj {
		h := QueryHit{ID: p.ID, Type: p.Type, Path: p.Path, Title: p.Title, Score: p.Score, Snippet: p.Snippet, Reasons: []string{}, Edges: []Edge{}}
		if a.Explain {
			h.Reasons = p.Reasons
			if len(h.Reasons) > 8 {
				h.Reasons = h.Reasons[:8]
			}
		}
		if a.Explain || len(a.Filters.Edge) > 0 {
			h.Edges = p.Edges
		}
		res.Results = append(res.Results, h)
	}
	return res, nil
}

// Query runs one query over ws without keeping a snapshot.
func Query(ctx context.Context, ws *workspace.Workspace, a QueryArgs) (*QueryResult, error) {
	return NewReader(ws).Query(ctx, a)
}
