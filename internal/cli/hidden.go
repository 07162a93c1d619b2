package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/snapshot"
	"github.com/vivary-dev/vivary-go/workspace"
)

// hiddenPath is one path `vivary check --show-hidden` shows, as --json
// prints it.
type hiddenPath struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
	Line   int    `json:"line,omitempty"`
}

// shownPath is a path as the owner may be shown it at the terminal: every
// name that holds a credential replaced by a mark (showing it would show
// the value), every character that acts on a display escaped
// (guard.Escape). The owner's ignored and secret-looking names are shown
// as they are.
func shownPath(p string) string {
	folder := strings.HasSuffix(p, "/") && p != "/"
	segs := strings.Split(strings.TrimSuffix(p, "/"), "/")
	for i, s := range segs {
		if policy.NameHoldsCredential(s) {
			segs[i] = "[a name that holds a credential]"
		} else {
			segs[i] = guard.Escape(s)
		}
	}
	out := strings.Join(segs, "/")
	if folder {
		out += "/"
	}
	return out
}

// hiddenRows are the hidden paths at, beneath or above one of paths (all
// of them when paths is empty), as shown.
func hiddenRows(hidden []snapshot.Hidden, paths []string) []hiddenPath {
	out := []hiddenPath{}
	for _, h := range hidden {
		if !related(h.Path, paths) {
			continue
		}
		out = append(out, hiddenPath{Path: shownPath(h.Path), Kind: h.Kind, Reason: h.Reason, Detail: h.Detail, Line: h.Line})
	}
	return out
}

// related reports a hidden path (a folder's ends in "/") at, beneath or
// above one of paths.
func related(hidden string, paths []string) bool {
	if len(paths) == 0 {
		return true
	}
	h := strings.TrimSuffix(hidden, "/")
	for _, p := range paths {
		if h == p || strings.HasPrefix(h, p+"/") || strings.HasPrefix(p, h+"/") {
			return true
		}
	}
	return false
}

// printHidden prints the hidden paths for a person, one line each with
// its rule.
func printHidden(w io.Writer, rows []hiddenPath) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "hidden: nothing")
		return
	}
	for _, r := range rows {
		rule := r.Detail
		if rule == "" {
			rule = omissionHints[[2]string{r.Kind, r.Reason}]
		}
		if r.Line > 0 {
			rule += fmt.Sprintf(", line %d", r.Line)
		}
		fmt.Fprintf(w, "hidden: %s (%s/%s: %s)\n", r.Path, r.Kind, r.Reason, rule)
	}
}

// hiddenArg says why a --path the owner gave is hidden, so that with
// --show-hidden it is named with its rule instead of refusing the check;
// "" when it is not.
func hiddenArg(ctx context.Context, ws *workspace.Workspace, p string) (string, error) {
	if why := guard.PathFault(p, limits.MaxPathChars); why != "" {
		return "not a workspace-relative path: " + why, nil
	}
	if policy.Sensitive(p) {
		return "a secret-looking name, never read", nil
	}
	ignored, err := policy.Ignored(ctx, ws, p)
	if err != nil {
		return "", err
	}
	if ignored {
		return "kept out by the workspace's ignore rules", nil
	}
	return "", nil
}

// explainRefusedPaths is what --show-hidden adds to a check refused for
// its --path values: each one that is hidden, named with its rule, and the
// hidden paths at, under or above them. It prints nothing it cannot tell.
func explainRefusedPaths(ctx context.Context, w io.Writer, ws *workspace.Workspace, paths []string) {
	for _, p := range paths {
		if why, err := hiddenArg(ctx, ws, p); err == nil && why != "" {
			fmt.Fprintf(w, "--path %s is hidden: %s\n", shownPath(p), why)
		}
	}
	if res, err := produce.CheckShowingHidden(ctx, ws, produce.CheckArgs{}); err == nil {
		printHidden(w, hiddenRows(res.Hidden, paths))
	}
}
