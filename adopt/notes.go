package adopt

import (
	"context"
	"strings"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
)

// blockIgnored applies the generated block's rules: what the workspace will
// keep private once adopted.
func blockIgnored(rel string) bool {
	if strings.HasPrefix(rel, ".vivary/private/") || strings.HasPrefix(rel, ".vivary/runtime/") {
		return true
	}
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasSuffix(seg, ".vivary-tmp") {
			return true
		}
	}
	return false
}

// notes checks the owner's Markdown the way Doctor will after apply, under
// the planned type policy: a note with an error (broken frontmatter, a
// typed note missing a required field) is a conflict that names it, so the
// preview says so instead of the apply rolling back. Only what the planned
// privacy policy will admit is read, and a note the content screen would
// drop is not judged. The notes' bytes are not bound by the plan hash;
// Doctor after apply remains the final check. Inside a larger Git
// worktree the planned policy cannot be asked before the block exists, so
// there Doctor alone judges.
func (pl *planner) notes(ctx context.Context, sv *survey) error {
	if pl.cfg == nil || pl.p.IgnoreMode == policy.ModeNested || len(sv.markdown) > limits.MaxMarkdownFiles {
		return nil
	}
	var cands []string
	for _, rel := range sv.markdown {
		if rel == ".vivary/context.md" || policy.Sensitive(rel) || policy.IsExcluded(rel, pl.cfg.Exclude) || blockIgnored(rel) {
			continue
		}
		cands = append(cands, rel)
	}
	if pl.p.IgnoreMode == policy.ModeGit && len(cands) > 0 {
		ignored, err := policy.IgnoredEach(ctx, pl.ws, cands)
		if err != nil {
			return fail("adopt cannot ask Git which notes it ignores: %s", message(err))
		}
		kept := cands[:0]
		for _, rel := range cands {
			if !ignored[rel] {
				kept = append(kept, rel)
			}
		}
		cands = kept
	}
	reader := pl.ws.NewReader()
	defer reader.Close()
	var total int64
	for _, rel := range cands {
		data, _, err := reader.ReadFile(rel, limits.MaxFileBytes, nil)
		if err != nil {
			continue
		}
		// Past what one snapshot may read, Doctor's own refusal will say so.
		if total += int64(len(data)); total > limits.MaxAggregateBytes {
			return nil
		}
		text := string(data)
		if guard.Credential(text) || guard.ContainsRoot(text, pl.ws.Root()) {
			continue
		}
		for _, f := range graph.Analyze(pl.cfg, rel, pl.project, text, 0, 0).Findings {
			if f.Level == "error" {
				pl.conflict(rel, "line %d: %s %s; fix the note, then preview again", f.Line, f.Code, f.Message)
				break
			}
		}
	}
	return nil
}
