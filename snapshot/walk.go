package snapshot

import (
	"context"
	"sort"
	"strings"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/workspace"
)

type candidate struct {
	rel  string
	info workspace.Info
}

// enumeration is what one walk of the tree found.
type enumeration struct {
	markdown    []candidate
	ignoreFiles []string // every entry named .gitignore, of any type
	stamps      []stamp  // directories walked and ignore files seen, for revalidation
	scanned     int      // entries counted towards the scan ceiling
}

func isMarkdown(name string) bool {
	l := strings.ToLower(name)
	return strings.HasSuffix(l, ".md") || strings.HasSuffix(l, ".markdown")
}

// enumerate walks the tree depth-first in UTF-16 name order, never through a link.
func enumerate(ctx context.Context, ws *workspace.Workspace, thin bool, col *collector) (*enumeration, error) {
	en := &enumeration{}
	if root, err := ws.Lstat("."); err == nil {
		en.stamps = append(en.stamps, stamp{".", root})
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		if err := cancelled(ctx); err != nil {
			return err
		}
		entries, err := ws.ReadDir(dir)
		if err != nil {
			col.add("filesystem", "directory_unavailable", 1)
			col.complete, col.unstable = false, true
			return nil
		}
		sort.Slice(entries, func(i, j int) bool { return guard.Less(entries[i].Name, entries[j].Name) })
		for _, e := range entries {
			en.scanned++
			if en.scanned > ceilings.entries {
				return tooManyEntries(thin)
			}
			rel := e.Name
			if dir != "" {
				rel = dir + "/" + e.Name
			}
			if !guard.SafeRelPath(rel, 4096) {
				col.add("filesystem", "unsafe_path", 1)
				continue
			}
			if !e.Exists {
				col.add("filesystem", "entry_unavailable", 1)
				col.complete, col.unstable = false, true
				continue
			}
			if e.Name == ".gitignore" {
				en.ignoreFiles = append(en.ignoreFiles, rel)
			}
			if e.IsLink() {
				col.add("filesystem", "link_or_reparse", 1)
				continue
			}
			if e.IsDir() {
				if policy.IsExcluded(rel, policy.DefaultExclude) {
					continue
				}
				if policy.SensitiveName(e.Name) {
					col.add("filesystem", "sensitive_name", 1)
					continue
				}
				en.stamps = append(en.stamps, stamp{rel, e})
				if err := walk(rel); err != nil {
					return err
				}
				continue
			}
			if e.Name == ".gitignore" {
				en.stamps = append(en.stamps, stamp{rel, e})
			}
			if dir == "" && e.Name == policy.OverlayPath {
				continue
			}
			if !e.IsRegular() || !isMarkdown(e.Name) {
				continue
			}
			switch {
			case policy.SensitiveName(e.Name):
				col.add("document", "sensitive_name", 1)
			case e.Nlink != 1:
				// Stamped: dropping the other link makes it readable.
				col.add("document", "hard_link_or_nonregular", 1)
				en.stamps = append(en.stamps, stamp{rel, e})
			default:
				// One over the per-file limit is still admitted first (an
				// ignored one is not named too large), then left out unread.
				en.markdown = append(en.markdown, candidate{rel, e})
			}
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil, err
	}
	return en, nil
}
