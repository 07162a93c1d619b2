package policy

import (
	"context"
	"sort"
	"strings"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/workspace"
)

// WorkspaceMode says which ignore policy governs ws: ModeGit (its root is a
// worktree root), ModeNested (inside a larger worktree) or ModeThin (outside
// Git). create-vivary adopt plans by it: only in ModeGit may a .gitignore
// with rules of its own stay.
func WorkspaceMode(ctx context.Context, ws *workspace.Workspace) (Mode, error) {
	mode, _, err := detectMode(ctx, ws)
	return mode, err
}

// IgnoredEach reports, for each of rels, whether the ignore rules keep it
// out, deciding the mode once and asking Git once. Any failure to decide is
// an error, and the caller must treat every path as not proven ignored.
func IgnoredEach(ctx context.Context, ws *workspace.Workspace, rels []string) (map[string]bool, error) {
	for _, rel := range rels {
		if why := guard.PathFault(rel, 4096); why != "" {
			return nil, unavailable("a path to check is not a safe relative path ("+why+")", nil)
		}
	}
	ig, err := newIgnorer(ctx, ws, nil)
	if err != nil {
		return nil, err
	}
	return ig.ignored(ctx, uniqueSorted(rels))
}

// ForeignIgnoreFiles returns, of the nested .gitignore files a walk that
// follows no link found (ignoreFiles, workspace-relative), those that would
// refuse every read outside Git once the root holds the exact block: each
// that is not an exact copy of the block (or is a link), unless a block
// above it already ignores its folder. The root's own file is not judged.
func ForeignIgnoreFiles(ws *workspace.Workspace, ignoreFiles []string) []string {
	b := &blocks{ws: ws, nested: false, at: map[string]bool{"": false}, looked: map[string]bool{"": true}, lstat: ws.Lstat}
	files := append([]string(nil), ignoreFiles...)
	sort.Slice(files, func(i, j int) bool {
		if ci, cj := strings.Count(files[i], "/"), strings.Count(files[j], "/"); ci != cj {
			return ci < cj
		}
		return files[i] < files[j]
	})
	var foreign []string
	for _, f := range files {
		dir, name := splitDir(f)
		if !strings.EqualFold(name, ".gitignore") || dir == "" {
			continue
		}
		// Blocks are looked up only from the list, shallow first, so
		// ignored never meets an unread folder.
		if ignored, _ := b.ignored(f); ignored {
			continue
		}
		if name != ".gitignore" {
			foreign = append(foreign, f)
			continue
		}
		b.looked[dir] = true
		coco, err := b.read(f, nestedBlockOwnRules)
		if err != nil {
			foreign = append(foreign, f)
			continue
		}
		b.at[dir] = coco
	}
	return foreign
}
