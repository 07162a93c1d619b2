package produce

import (
	"context"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/snapshot"
	"github.com/vivary-dev/vivary-go/workspace"
)

// FindArgs are vivary_find's inputs.
type FindArgs struct {
	Question string
	Limit    int // 1..20
	Budget   int // 64..4000 estimated tokens
}

// FindHit is one find result.
type FindHit struct {
	ID      string  `json:"id"`
	Type    *string `json:"type"`
	Path    string  `json:"path"`
	Reason  string  `json:"reason"`
	Snippet *string `json:"snippet"`
	Edges   []Edge  `json:"edges"`
}

// FindResult is vivary.find-result/v0.
type FindResult struct {
	Schema               string     `json:"schema"`
	Query                string     `json:"query"`
	K                    int        `json:"k"`
	Budget               int        `json:"budget"`
	EstimatedTokens      int        `json:"estimated_tokens"`
	Filters              Filters    `json:"filters"`
	Results              []FindHit  `json:"results"`
	Complete             bool       `json:"complete"`
	WorkspaceFingerprint string     `json:"workspace_fingerprint"`
	Omissions            []Omission `json:"omissions"`
}

// TokenCost is the estimated token cost of a value: ceil(bytes of its
// compact sorted JSON / 4).
func TokenCost(v any) (int, error) {
	b, err := canon.Compact(v)
	if err != nil {
		return 0, err
	}
	return (len(b) + 3) / 4, nil
}

// Find returns ranked context for a question, filled in rank order until the
// token budget; what does not fit is counted as result/budget_limit.
func (r *Reader) Find(ctx context.Context, a FindArgs) (*FindResult, error) {
	if err := ValidateText("question", a.Question, r.ws.Root()); err != nil {
		return nil, err
	}
	if a.Limit < 1 || a.Limit > limits.MaxResults {
		return nil, outOfRange("limit", 1, limits.MaxResults)
	}
	if a.Budget < limits.MinFindBudget || a.Budget > limits.MaxFindBudget {
		return nil, outOfRange("budget", limits.MinFindBudget, limits.MaxFindBudget)
	}
	snap, proj, err := r.ranked(ctx, searchArgs{text: a.Question, k: a.Limit, snippetChars: limits.FindSnippetChars})
	if err != nil {
		return nil, err
	}
	res := &FindResult{
		Schema: FindSchemaID, Query: a.Question, K: a.Limit, Budget: a.Budget,
		Filters: Filters{[]string{}, []string{}, []string{}}, Results: []FindHit{},
		WorkspaceFingerprint: snap.Fingerprint,
	}
	omissions := map[[2]string]int{}
	for _, o := range snap.Omissions {
		omissions[[2]string{o.Kind, o.Reason}] += o.Count
	}
	for i, p := range proj {
		h := FindHit{ID: p.ID, Type: p.Type, Path: p.Path, Reason: "typed context match", Snippet: p.Snippet, Edges: p.Edges}
		if len(p.Reasons) > 0 {
			h.Reason = p.Reasons[0]
		}
		cost, err := TokenCost(h)
		if err != nil {
			return nil, reasonProducer("a result could not be costed")
		}
		if res.EstimatedTokens+cost > a.Budget {
			omissions[[2]string{"result", "budget_limit"}] += len(proj) - i
			break
		}
		res.EstimatedTokens += cost
		res.Results = append(res.Results, h)
	}
	res.Omissions = snapshot.Rows(omissions)
	res.Complete = snap.Complete && len(res.Results) == len(proj)
	return res, nil
}

// Find runs one find over ws without keeping a snapshot.
func Find(ctx context.Context, ws *workspace.Workspace, a FindArgs) (*FindResult, error) {
	return NewReader(ws).Find(ctx, a)
}
