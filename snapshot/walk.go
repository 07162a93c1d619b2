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

// mayReadAsMachinePath is a cheap filter for guard.MachinePath over a
// path: only a path with a mark a machine path is
// written after, or a non-ASCII one (a full-width solidus), can hold one.
func mayReadAsMachinePath(rel string) bool {
	return strings.ContainsAny(rel, guard.PathLeads) || !guard.IsASCII(rel)
}

func isMarkdown(name string) bool {
	l := strings.ToLower(name)
	return strings.HasSuffix(l, ".md") || strings.HasSuffix(l, ".markdown")
}

// beforeList runs just before a folder is listed; only tests set it.
var beforeList func(dir string)

// walker is what one walk needs besides the tree: the ignore rules, asked
// about folders, and the type policy's excludes.
type walker struct {
	ctx     context.Context
	ws      *workspace.Workspace
	feed    feed
	rules   *policy.Session
	exclude []string // the composed type policy's, default excludes included
	thin    bool
	col     *collector
	en      *enumeration
	dirs    *workspace.Reader // the folders' handles, each opened beneath its parent's
}

// enumerate walks the tree one level at a time, never through a link, and
// never into a folder that is excluded (silently for the default excludes),
// secret-looking or ignored: the folders of each level go to the ignore
// rules in one batch before any of them is listed, so nothing beneath a
// pruned folder is listed, counted or read. Within a folder, entries are
// taken in UTF-16 name order.
func enumerate(ctx context.Context, ws *workspace.Workspace, fd feed, rules *policy.Session, exclude []string, thin bool, col *collector) (*enumeration, error) {
	w := &walker{ctx: ctx, ws: ws, feed: fd, rules: rules, exclude: exclude, thin: thin, col: col, en: &enumeration{}, dirs: ws.NewReader()}
	defer w.dirs.Close()
	if root, err := ws.Lstat("."); err == nil {
		w.en.stamps = append(w.en.stamps, stamp{".", root})
	}
	level := []string{""}
	for len(level) > 0 {
		var subdirs []candidate
		for _, dir := range level {
			found, err := w.list(dir)
			if err != nil {
				return nil, err
			}
			subdirs = append(subdirs, found...)
		}
		var err error
		if level, err = w.prune(subdirs); err != nil {
			return nil, err
		}
	}
	return w.en, nil
}

// prune asks the ignore rules about a level's folders at once and returns
// the ones to enter. The privacy decision comes first, as for files: an
// ignored folder counts as ignored even when the type policy excludes it.
func (w *walker) prune(dirs []candidate) ([]string, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	rels := make([]string, len(dirs))
	for i, d := range dirs {
		rels[i] = d.rel
	}
	ignored, err := w.rules.IgnoredDirs(w.ctx, rels)
	if err != nil {
		return nil, err
	}
	var enter []string
	for _, d := range dirs {
		switch {
		case ignored[d.rel]:
			w.col.add("privacy_excluded", "git_ignored", 1)
		case policy.IsExcluded(d.rel, w.exclude):
			w.col.add("document", "config_excluded", 1)
		default:
			w.en.stamps = append(w.en.stamps, stamp(d))
			enter = append(enter, d.rel)
		}
	}
	return enter, nil
}

// list reads one folder: its Markdown candidates and ignore files go to the
// enumeration, its folders worth asking about are returned.
func (w *walker) list(dir string) ([]candidate, error) {
	if err := cancelled(w.ctx); err != nil {
		return nil, err
	}
	en, col := w.en, w.col
	if beforeList != nil {
		beforeList(dir)
	}
	var opened func(int)
	if w.feed != nil {
		opened = func(fd int) { w.feed.dirOpened(fd, dir) }
	}
	entries, err := w.dirs.ListDir(dir, opened)
	if err != nil {
		col.add("filesystem", "directory_unavailable", 1)
		col.complete, col.unstable = false, true
		return nil, nil
	}
	sort.Slice(entries, func(i, j int) bool { return guard.Less(entries[i].Name, entries[j].Name) })
	var subdirs []candidate
	for _, e := range entries {
		en.scanned++
		if en.scanned > ceilings.entries {
			return nil, tooManyEntries(w.thin)
		}
		rel := e.Name
		if dir != "" {
			rel = dir + "/" + e.Name
		}
		if !guard.SafeRelPath(rel, 4096) || mayReadAsMachinePath(rel) && guard.MachinePath(rel) {
			// A path the output screen would take for a machine path
			// ("notes:/n.md") is left out here, so that it costs its own
			// files and never the whole answer.
			col.add("filesystem", "unsafe_path", 1)
			continue
		}
		if !e.Exists {
			col.add("filesystem", "entry_unavailable", 1)
			col.complete, col.unstable = false, true
			continue
		}
		if strings.EqualFold(e.Name, ".gitignore") {
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
			subdirs = append(subdirs, candidate{rel, e})
			continue
		}
		if strings.EqualFold(e.Name, ".gitignore") {
			en.stamps = append(en.stamps, stamp{rel, e})
		}
		if dir == "" && e.Name == policy.OverlayPath {
			continue
		}
		if !e.IsRegular() || !isMarkdown(e.Name) {
			continue
		}
		if policy.SensitiveName(e.Name) {
			col.add("document", "sensitive_name", 1)
			continue
		}
		// A hard-linked file, or one over the per-file limit, is still
		// admitted first (an ignored one is counted as ignored), then left
		// out unread.
		en.markdown = append(en.markdown, candidate{rel, e})
	}
	return subdirs, nil
}
