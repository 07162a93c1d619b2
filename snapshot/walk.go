package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

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
	unreadable  []string // folders left out because they cannot be searched
	stamps      []stamp  // directories walked and ignore files seen, for revalidation
	scanned     int      // entries counted towards the scan ceiling
}

// mayReadAsMachinePath is a cheap filter for guard.MachinePath over a
// path: only a path with a mark a machine path is
// written after, or a non-ASCII one (a full-width solidus), can hold one.
func mayReadAsMachinePath(rel string) bool {
	return strings.ContainsAny(rel, guard.PathLeads) || !guard.IsASCII(rel)
}

// unsafePath says why rel cannot be a document's path (guard.PathFault), or
// that the output screen would read it as a machine path, or "".
func unsafePath(rel string) string {
	if why := guard.PathFault(rel, 4096); why != "" {
		return why
	}
	if mayReadAsMachinePath(rel) && guard.MachinePath(rel) {
		return "it reads as an absolute machine path"
	}
	return ""
}

// folder is how a hidden folder is named: its path and a "/" ("./" for
// the root).
func folder(rel string) string {
	if rel == "" {
		return "./"
	}
	return rel + "/"
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
	dirs    []*workspace.Reader // one per lister: the folders' handles, each opened beneath its parent's
}

// enumerate walks the tree one level at a time, never through a link, and
// never into a folder that is excluded (silently for the default excludes),
// secret-looking or ignored: the folders of each level go to the ignore
// rules in one batch before any of them is listed, so nothing beneath a
// pruned folder is listed, counted or read. Within a folder, entries are
// taken in UTF-16 name order.
func enumerate(ctx context.Context, ws *workspace.Workspace, fd feed, rules *policy.Session, exclude []string, thin bool, col *collector) (*enumeration, error) {
	w := &walker{ctx: ctx, ws: ws, feed: fd, rules: rules, exclude: exclude, thin: thin, col: col, en: &enumeration{}}
	w.dirs = make([]*workspace.Reader, workersOf(ctx))
	for i := range w.dirs {
		w.dirs[i] = ws.NewReader()
		defer w.dirs[i].Close()
	}
	if root, err := ws.Lstat("."); err == nil {
		w.en.stamps = append(w.en.stamps, stamp{".", root})
	}
	level := []string{""}
	for len(level) > 0 {
		listings := w.listAll(level)
		var subdirs []candidate
		for i, dir := range level {
			found, err := w.take(dir, listings[i])
			if err != nil {
				return nil, err
			}
			subdirs = append(subdirs, found...)
		}
		var err error
		if level, err = w.prune(subdirs); err != nil {
			return nil, err
		}
		MeterOf(ctx).known(len(w.en.markdown))
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
	ignored, unreadable, err := w.rules.IgnoredDirs(w.ctx, rels)
	if err != nil {
		return nil, err
	}
	var enter []string
	for _, d := range dirs {
		switch {
		case ignored[d.rel]:
			w.col.hide("privacy_excluded", "git_ignored", folder(d.rel), "")
		case policy.IsExcluded(d.rel, w.exclude):
			w.col.hide("document", "config_excluded", folder(d.rel), "")
		case unreadable[d.rel]:
			// Its stamp is kept, so a change of its permissions shows.
			w.en.stamps = append(w.en.stamps, stamp(d))
			w.unreadable(d.rel)
		default:
			w.en.stamps = append(w.en.stamps, stamp(d))
			enter = append(enter, d.rel)
		}
	}
	return enter, nil
}

// unreadable leaves out a folder whose entries cannot be looked at: nothing
// in it can be read, so nothing can leak from it, and the rest is answered.
func (w *walker) unreadable(dir string) {
	w.col.hide("filesystem", "unreadable", folder(dir), "")
	w.col.complete = false
	w.en.unreadable = append(w.en.unreadable, dir)
}

// listing is one folder's entries in UTF-16 name order, or why it could
// not be listed.
type listing struct {
	entries []workspace.Info
	err     error
}

// listAll lists a level's folders on every core; what they hold is taken
// afterwards in the level's order, so the walk is the same as one folder
// at a time. Listing stops once the level has met more entries than the
// scan ceiling allows, which take then refuses.
func (w *walker) listAll(level []string) []listing {
	out := make([]listing, len(level))
	for i := range out {
		out[i].err = errOverCeiling
	}
	if beforeList != nil {
		for _, dir := range level {
			beforeList(dir)
		}
	}
	var next, met atomic.Int64
	var wg sync.WaitGroup
	listers := min(len(w.dirs), len(level))
	for _, r := range w.dirs[:listers] {
		wg.Add(1)
		spawn(listers, func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(level) || met.Load() > int64(ceilings.entries) {
					return
				}
				if err := cancelled(w.ctx); err != nil {
					out[i].err = err
					return
				}
				out[i] = w.list(r, level[i])
				met.Add(int64(len(out[i].entries)))
			}
		})
	}
	wg.Wait()
	return out
}

// list lists one folder through r, its lister's own handles.
func (w *walker) list(r *workspace.Reader, dir string) listing {
	var opened func(int)
	if w.feed != nil {
		opened = func(fd int) { w.feed.dirOpened(fd, dir) }
	}
	entries, err := r.ListDir(dir, opened)
	if errors.Is(err, fs.ErrPermission) {
		return listing{err: errUnreadable}
	}
	if err != nil {
		return listing{err: errUnlisted}
	}
	sort.Slice(entries, func(i, j int) bool { return guard.Less(entries[i].Name, entries[j].Name) })
	return listing{entries: entries}
}

// errUnlisted marks a folder that could not be listed, errOverCeiling one
// left unlisted because its level had already met too many entries (the
// folders before it hold more than the ceiling, so take refuses before
// it meets one; refusing there too keeps it so if that ever changes).
var (
	errUnreadable  = errors.New("folder not readable")
	errUnlisted    = errors.New("folder not listed")
	errOverCeiling = errors.New("folder left unlisted past the scan ceiling")
)

// take reads one folder's listing: its Markdown candidates and ignore
// files go to the enumeration, its folders worth asking about are
// returned.
func (w *walker) take(dir string, l listing) ([]candidate, error) {
	if err := cancelled(w.ctx); err != nil {
		return nil, err
	}
	en, col := w.en, w.col
	switch {
	case l.err == errUnreadable:
		// Its permissions changed since its parent's batch asked about
		// it; its stamp, taken then, shows the change.
		w.unreadable(dir)
		return nil, nil
	case l.err == errUnlisted:
		col.hide("filesystem", "directory_unavailable", folder(dir), "")
		col.complete, col.unstable = false, true
		return nil, nil
	case l.err == errOverCeiling:
		return nil, tooManyEntries(w.thin)
	case l.err != nil:
		return nil, l.err
	}
	var subdirs []candidate
	for i, e := range l.entries {
		// A folder may hold tens of thousands of entries.
		if i%1024 == 1023 {
			if err := cancelled(w.ctx); err != nil {
				return nil, err
			}
		}
		en.scanned++
		if en.scanned > ceilings.entries {
			return nil, tooManyEntries(w.thin)
		}
		rel := e.Name
		if dir != "" {
			rel = dir + "/" + e.Name
		}
		// A secret-looking name stays one however it is disguised: the
		// name screen sees through what makes a name unsafe, so such a
		// name is counted as secret-looking, below, not as unsafe.
		if why := unsafePath(rel); why != "" && !policy.SensitiveName(e.Name) {
			// A path the output screen would take for a machine path
			// ("notes:/n.md") is left out here, so that it costs its own
			// files and never the whole answer.
			if e.IsDir() {
				rel = folder(rel)
			}
			col.hide("filesystem", "unsafe_path", rel, why)
			continue
		}
		if !e.Exists {
			col.hide("filesystem", "entry_unavailable", rel, "")
			col.complete, col.unstable = false, true
			continue
		}
		if strings.EqualFold(e.Name, ".gitignore") {
			en.ignoreFiles = append(en.ignoreFiles, rel)
		}
		if e.IsLink() {
			col.hide("filesystem", "link_or_reparse", rel, "")
			continue
		}
		if e.IsDir() {
			if policy.IsExcluded(rel, policy.DefaultExclude) {
				continue
			}
			if policy.SensitiveName(e.Name) {
				col.hide("filesystem", "sensitive_name", folder(rel), "")
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
			col.hide("document", "sensitive_name", rel, "")
			continue
		}
		// A hard-linked file, or one over the per-file limit, is still
		// admitted first (an ignored one is counted as ignored), then left
		// out unread.
		en.markdown = append(en.markdown, candidate{rel, e})
	}
	return subdirs, nil
}
