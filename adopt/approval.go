package adopt

import (
	"path"
	"slices"
	"strings"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/workspace"
)

// comparePaths orders paths component by component.
func comparePaths(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

// sortAndDirs puts the actions in apply order (.gitignore first, so private
// paths are ignored before anything else exists) and finds the folders they
// need that do not exist yet.
func (p *Plan) sortAndDirs(ws *workspace.Workspace) {
	slices.SortFunc(p.Actions, func(a, b Action) int {
		switch {
		case a.Path == b.Path:
			return 0
		case a.Path == ".gitignore":
			return -1
		case b.Path == ".gitignore":
			return 1
		}
		return strings.Compare(a.Path, b.Path)
	})
	slices.SortFunc(p.Kept, func(a, b Kept) int { return comparePaths(a.Path, b.Path) })
	slices.SortFunc(p.Conflicts, func(a, b Conflict) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	seen := map[string]bool{}
	for _, a := range p.Actions {
		var chain []string
		for d := path.Dir(a.Path); d != "."; d = path.Dir(d) {
			chain = append([]string{d}, chain...)
		}
		for _, d := range chain {
			if seen[d] {
				continue
			}
			seen[d] = true
			if info, err := ws.Lstat(d); err == nil && !info.Exists {
				p.dirs = append(p.dirs, d)
			}
		}
	}
	slices.SortStableFunc(p.dirs, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
}

// approval is what the hash binds: the target's identity, the options, the
// bytes of every file the plan creates, patches, replaces or keeps, the
// type-policy inputs, and the ignore mode that decided the .gitignore plan.
// The owner's other notes are not bound: editing one does not void the
// plan (Doctor after apply still checks the whole workspace).
func (p *Plan) approval() map[string]any {
	rows := func(get func(Action) (map[string]any, bool)) []any {
		out := []any{}
		sorted := slices.Clone(p.Actions)
		slices.SortFunc(sorted, func(a, b Action) int { return comparePaths(a.Path, b.Path) })
		for _, a := range sorted {
			if m, ok := get(a); ok {
				out = append(out, m)
			}
		}
		return out
	}
	kept := func(ks []Kept) []any {
		out := []any{}
		for _, k := range ks {
			out = append(out, map[string]any{"path": k.Path, "content_hash": k.ContentHash})
		}
		return out
	}
	caps := p.caps
	if caps == nil {
		caps = []string{}
	}
	return map[string]any{
		"contract": policy.ThinContract,
		"target":   map[string]any{"canonical_path": p.identity.Path, "device": p.identity.Dev, "inode": p.identity.Inode},
		"preset":   p.Preset, "adapters": p.Adapters, "capabilities": caps, "ignore_mode": string(p.IgnoreMode),
		"creates": rows(func(a Action) (map[string]any, bool) {
			return map[string]any{"path": a.Path, "content_hash": canon.Digest(a.after)}, a.Kind == Create
		}),
		"patches": rows(func(a Action) (map[string]any, bool) {
			return map[string]any{"path": a.Path, "before_hash": canon.Digest(a.before), "anchor": "eof", "inserted_text": a.Inserted}, a.Kind == Patch
		}),
		"adapter_replacements": rows(func(a Action) (map[string]any, bool) {
			return map[string]any{"path": a.Path, "before_hash": canon.Digest(a.before), "content_hash": canon.Digest(a.after)}, a.Kind == Replace
		}),
		"kept":          kept(p.Kept),
		"policy_inputs": kept(p.PolicyInputs),
	}
}

// hash is the plan hash: the approval's.
func (p *Plan) hash() (string, error) {
	return approvalHash(p.approval())
}

// approvalHash is "sha256:" + the digest of v dumped as Python would
// (sorted keys, compact, ASCII-escaped).
func approvalHash(v any) (string, error) {
	b, err := canon.Encode(v, canon.Options{Order: canon.CodePoint, ASCII: true})
	if err != nil {
		return "", err
	}
	return canon.Digest(b), nil
}
