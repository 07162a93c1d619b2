package produce

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/snapshot"
	"github.com/vivary-dev/vivary-go/workspace"
)

// CheckArgs are vivary_check's inputs.
type CheckArgs struct {
	Paths  []string
	Strict *bool // nil: the workspace policy decides
	// Spelling is how a refusal names a path: paths[i] or --path.
	Spelling Spelling
}

// CheckResult is vivary.check-result/v0.
type CheckResult struct {
	Schema               string          `json:"schema"`
	Checked              int             `json:"checked"`
	Clean                int             `json:"clean"`
	Errors               int             `json:"errors"`
	Warnings             int             `json:"warnings"`
	Findings             []graph.Finding `json:"findings"`
	Strict               bool            `json:"strict"`
	Complete             bool            `json:"complete"`
	WorkspaceFingerprint string          `json:"workspace_fingerprint"`
	Omissions            []Omission      `json:"omissions"`
	// Beyond the schema, for a person: the given paths that selected no
	// document, the admitted documents that could not be read, and the
	// folders left out because they cannot be searched.
	Unselected        []string `json:"-"`
	Unreadable        []string `json:"-"`
	UnreadableFolders []string `json:"-"`
	// Hidden is every path the snapshot left out, with its rule: only from
	// CheckShowingHidden, for the owner at the terminal.
	Hidden []snapshot.Hidden `json:"-"`
}

// CheckSchemaID is the check result's schema id.
const CheckSchemaID = "vivary.check-result/v0"

// ValidateCheckPaths applies the check path rules: at most MaxCheckPaths
// unique, safe, relative paths, none secret-looking. A refusal names the
// path (when it is safe to show; root is the workspace's, never shown) and
// the rule it broke.
func ValidateCheckPaths(paths []string, s Spelling, root string) error {
	if len(paths) > limits.MaxCheckPaths {
		return reason.New(reason.InvalidArguments, fmt.Sprintf("%s holds more than %d entries; check a parent folder instead", s.list("paths"), limits.MaxCheckPaths))
	}
	first := map[string]int{}
	for i, p := range paths {
		rule := textRule(p, limits.MaxPathChars)
		if rule == "" {
			rule = guard.PathShapeProblem(p)
		}
		if rule == "" && policy.Sensitive(p) {
			rule = ruleSecret
		}
		if j, dup := first[p]; rule == "" && dup {
			rule = "repeats " + s.item("paths", j, len(paths)) + "; give each path once"
		}
		if rule != "" {
			return s.pathRefused("paths", i, paths, root, rule)
		}
		first[p] = i
	}
	return nil
}

func selected(rel string, paths []string) bool {
	if len(paths) == 0 {
		return true
	}
	for _, p := range paths {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// Check validates the selected documents without changing them.
func (r *Reader) Check(ctx context.Context, args CheckArgs) (*CheckResult, error) {
	if err := ValidateCheckPaths(args.Paths, args.Spelling, r.ws.Root()); err != nil {
		return nil, err
	}
	if err := r.refuseIgnored(ctx, args.Spelling, "paths", args.Paths); err != nil {
		return nil, err
	}
	snap, err := r.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	ids := snap.Graph.IDs
	holders := map[string]int{}
	for _, d := range snap.Docs {
		holders[d.ID]++
	}
	res := &CheckResult{Schema: CheckSchemaID, Findings: []graph.Finding{}, Strict: snap.Config.Strict}
	if args.Strict != nil {
		res.Strict = *args.Strict
	}
	hit := make([]bool, len(args.Paths))
	for n, d := range snap.Docs {
		// Every document's findings are worked out here, after the
		// reads: a cancelled check stops within a thousand of them.
		if n%1024 == 0 {
			if err := cancelled(ctx); err != nil {
				return nil, err
			}
		}
		if !selected(d.Path, args.Paths) {
			continue
		}
		for i, p := range args.Paths {
			if d.Path == p || strings.HasPrefix(d.Path, p+"/") {
				hit[i] = true
			}
		}
		fs := append(append(append([]graph.Finding{}, d.Findings...), d.UnresolvedFindings(ids)...), d.AmbiguousFindings(holders)...)
		res.Checked++
		if len(fs) == 0 {
			res.Clean++
		}
		for _, f := range fs {
			if f.Level == "error" {
				res.Errors++
			} else {
				res.Warnings++
			}
			if len(res.Findings) >= limits.MaxFindings {
				return nil, workLimit("the check found more than 200 findings; narrow it with paths")
			}
			res.Findings = append(res.Findings, f)
		}
	}
	sort.SliceStable(res.Findings, func(i, j int) bool {
		a, b := res.Findings[i], res.Findings[j]
		if a.Path != b.Path {
			return guard.Less(a.Path, b.Path)
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Level != b.Level {
			return a.Level < b.Level
		}
		return a.Code < b.Code
	})
	missing := 0
	for i, h := range hit {
		if !h {
			missing++
			res.Unselected = append(res.Unselected, args.Paths[i])
		}
	}
	res.Unreadable, res.UnreadableFolders, res.Hidden = snap.Unreadable, snap.UnreadableFolders, snap.Hidden
	res.Omissions = snap.Omissions
	if missing > 0 {
		m := map[[2]string]int{}
		for _, o := range snap.Omissions {
			m[[2]string{o.Kind, o.Reason}] += o.Count
		}
		m[[2]string{"selection", "path_not_found"}] += missing
		res.Omissions = snapshot.Rows(m)
	}
	res.Complete = snap.Complete && missing == 0
	res.WorkspaceFingerprint = snap.Fingerprint
	return res, nil
}

// Check runs one check over ws without keeping a snapshot.
func Check(ctx context.Context, ws *workspace.Workspace, args CheckArgs) (*CheckResult, error) {
	return NewReader(ws).Check(ctx, args)
}

// CheckShowingHidden is Check for the owner at the terminal (`vivary check
// --show-hidden`): the same check, and in CheckResult.Hidden every path the
// workspace's snapshot left out, with its rule. Nothing that answers an
// agent calls it; internal/archtest proves vivary-mcp does not.
func CheckShowingHidden(ctx context.Context, ws *workspace.Workspace, args CheckArgs) (*CheckResult, error) {
	r := NewReader(ws)
	r.options.ListHidden = true
	return r.Check(ctx, args)
}
