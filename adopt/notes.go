package adopt

import (
	"context"
	"errors"

	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// notes checks the owner's Markdown the way Doctor will after apply, under
// the planned type policy: a note with an error (broken frontmatter, a
// typed note missing a required field) is a conflict that names it, so the
// preview says so instead of the apply rolling back. The notes are judged
// and read by the snapshot itself, under the planned type policy and
// .gitignore block (snapshot.Planned): the same walk, admission, limits
// and content screen every read of the adopted workspace uses, so a note
// the workspace will keep private is never read here. The notes' bytes are
// not bound by the plan hash; Doctor after apply remains the final check.
func (pl *planner) notes(ctx context.Context) error {
	if pl.cfg == nil {
		return nil
	}
	snap, err := snapshot.Take(ctx, pl.ws, snapshot.Options{Planned: &snapshot.Planned{Config: pl.cfg, Cocoindex: pl.coco}})
	var re *reason.Error
	switch {
	case err == nil:
	case errors.As(err, &re) && re.Code == reason.WorkLimitExceeded, len(pl.p.Conflicts) > 0:
		// Past what a snapshot may read, Doctor's own refusal will say so;
		// and a plan with conflicts (a nested .gitignore of its own, say)
		// is fixed first.
		return nil
	case ctx.Err() != nil:
		return err
	default:
		return fail("adopt cannot read the notes the way the adopted workspace will: %s", message(err))
	}
	for _, d := range snap.Docs {
		if d.Path == ".vivary/context.md" {
			continue // planned on its own
		}
		for _, f := range d.Findings {
			if f.Level == "error" {
				pl.conflict(d.Path, "line %d: %s %s; fix the note, then preview again", f.Line, f.Code, f.Message)
				break
			}
		}
	}
	return nil
}
