package adopt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/workspace"
	"github.com/vivary-dev/vivary-go/workspace/write"
)

// Undo operations.
const (
	UndoRemove = "remove"       // a file adopt created, still holding what adopt wrote
	UndoStrip  = "remove-block" // the text adopt appended, still at the end of the file
)

// UndoStep is one file an undo changes: from the bytes it holds now to the
// bytes it held before adopt (or to no file).
type UndoStep struct {
	Path        string  `json:"path"`
	Operation   string  `json:"operation"`
	CurrentHash string  `json:"current_hash"`
	ResultHash  *string `json:"result_hash"` // null when the file goes
	cur, result []byte
}

// UndoKept is a file adopt wrote that the undo leaves as it is, and why.
type UndoKept struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Undo is the plan to take an adopted folder back to what it was: every
// file adopt created and still holds adopt's bytes goes, every block adopt
// appended and still ends its file is cut off, and the folders adopt made
// go when nothing else is in them. Anything the person changed since is
// named and kept.
type Undo struct {
	Root      string
	Adoptions int        // how many adoptions the record lists
	Steps     []UndoStep // by path, .gitignore last
	Kept      []UndoKept // by path
	Folders   []string   // the folders adopt made, innermost first
	Temps     []string   // temp files a killed adopt or undo left
	Left      []UndoKept // after an undo: those folders still there, and why
	Hash      string
	rec       *record
	recBytes  []byte
	temps     []Step
}

// PreviewUndo plans undoing the adoptions of target and writes nothing.
func PreviewUndo(ctx context.Context, target string) (*Undo, error) {
	ws, abs, err := bind(target)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	return planUndo(ws, abs)
}

// fileState is one file as the undo plan sees it: as it is now, and as it
// will be once every recorded adoption is taken back.
type fileState struct {
	exists, ends bool   // now; after the undo
	now, end     []byte // the bytes now; after the undo
	bad          string // why it cannot be touched
}

// planUndo reads the record and the files it names, and works out, newest
// adoption first and each adoption's files in reverse, what taking every
// adoption back does to each file.
func planUndo(ws *workspace.Workspace, abs string) (*Undo, error) {
	if info, err := ws.Lstat(scaffold.JournalPath); err != nil || info.Exists {
		return nil, fail("an adoption of this folder was interrupted; recover it first (`create-vivary adopt DIR --recover`, then --recover --apply HASH), then undo")
	}
	if data, exists, err := readBack(ws, ".gitignore"); err == nil && exists {
		if state, _, _ := scaffold.FindMarker(data); state != scaffold.NoMarker {
			return nil, fail("an adoption of this folder was interrupted before its journal was written; recover it first (`create-vivary adopt DIR --recover`), then undo")
		}
	}
	rec, rb, err := loadRecord(ws)
	if err != nil {
		return nil, err
	}
	if rec == nil || len(rec.Adoptions) == 0 {
		return nil, fail("nothing to undo: this folder has no record of an adoption (%s); a folder made by `create-vivary init`, or adopted by a create-vivary that kept no record, is taken back by removing its files by hand", scaffold.RecordPath)
	}
	u := &Undo{Root: abs, Adoptions: len(rec.Adoptions), Steps: []UndoStep{}, Kept: []UndoKept{}, Folders: []string{}, rec: rec, recBytes: rb}
	files := map[string]*fileState{}
	get := func(rel string) *fileState {
		if f, ok := files[rel]; ok {
			return f
		}
		f := &fileState{}
		data, exists, err := readBack(ws, rel)
		if err != nil {
			f.bad = "it is no plain file the undo can read (it, or a folder on the way, is a link; it is a folder or has several names; or it cannot be read), so the undo does not touch it"
		}
		f.exists, f.ends, f.now, f.end = exists, exists, data, data
		files[rel] = f
		return f
	}
	kept := map[string]string{}
	keep := func(rel, why string) {
		if _, ok := kept[rel]; !ok {
			kept[rel] = why
		}
	}
	for i := len(rec.Adoptions) - 1; i >= 0; i-- {
		e := rec.Adoptions[i]
		for k := len(e.Actions) - 1; k >= 0; k-- {
			a := e.Actions[k]
			f := get(a.Path)
			switch {
			case f.bad != "":
				keep(a.Path, f.bad)
			case !f.ends:
				// Already gone: nothing of adopt's is left to remove.
			case a.Kind == Create && canon.Digest(f.end) == a.AfterHash:
				f.ends, f.end = false, nil
			case a.Kind == Create:
				keep(a.Path, "it changed since adopt created it, so it is yours now; delete it by hand if you do not want it")
			case a.Kind == Patch && bytes.HasSuffix(f.end, []byte(*a.Inserted)):
				f.end = f.end[:len(f.end)-len(*a.Inserted)]
			case a.Kind == Patch && bytes.Contains(f.end, []byte(strings.TrimLeft(*a.Inserted, "\n"))):
				keep(a.Path, "the Vivary block adopt appended is no longer at its end as adopt wrote it; remove the block by hand")
			case a.Kind == Patch && holdsMarker(a.Path, f.end):
				keep(a.Path, "the Vivary block adopt appended changed since (a line edited or removed, or the line endings converted), so it is yours now; remove the block by hand if you do not want it")
			case a.Kind == Patch:
				// The block is gone already.
			case canon.Digest(f.end) == a.AfterHash:
				keep(a.Path, "adopt replaced an older generated copy of it, which it did not keep; delete it by hand if you do not want it")
			default:
				keep(a.Path, "it changed since adopt replaced it, so it is yours now")
			}
		}
		for _, d := range e.Dirs {
			if !slices.Contains(u.Folders, d) {
				u.Folders = append(u.Folders, d)
			}
		}
	}
	u.temps = cleanupSteps(ws, nil)
	// The .gitignore block keeps the private and runtime folders out of
	// Git: while one of them still holds something once the undo is done
	// (the person's private notes, a file adopt did not write), cutting
	// the block would hand it to the next `git add`, so the block stays.
	if f := files[".gitignore"]; f != nil && f.exists && !(f.ends && bytes.Equal(f.now, f.end)) {
		if dir := stillHidden(ws, f.now, u.temps); dir != "" {
			f.ends, f.end = true, f.now
			keep(".gitignore", "its Vivary block keeps "+dir+" out of Git, and that folder still holds files adopt did not make: "+
				"move them out of the workspace, then remove the block by hand")
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		f := files[rel]
		switch {
		case f.bad != "" || !f.exists || (f.ends && bytes.Equal(f.now, f.end)):
			continue
		case !f.ends:
			u.Steps = append(u.Steps, UndoStep{Path: rel, Operation: UndoRemove, CurrentHash: canon.Digest(f.now), cur: f.now})
		default:
			u.Steps = append(u.Steps, UndoStep{Path: rel, Operation: UndoStrip, CurrentHash: canon.Digest(f.now), ResultHash: str(canon.Digest(f.end)), cur: f.now, result: f.end})
		}
	}
	// .gitignore last: what it keeps private stays private until every
	// other file is undone. Only the record (hashes and generated text,
	// never the owner's bytes) outlives it, as the undo's own journal.
	slices.SortStableFunc(u.Steps, func(a, b UndoStep) int {
		switch {
		case a.Path == ".gitignore" && b.Path != ".gitignore":
			return 1
		case b.Path == ".gitignore" && a.Path != ".gitignore":
			return -1
		}
		return 0
	})
	for _, rel := range slices.Sorted(maps.Keys(kept)) {
		u.Kept = append(u.Kept, UndoKept{rel, kept[rel]})
	}
	slices.SortStableFunc(u.Folders, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	u.Temps = []string{}
	for _, t := range u.temps {
		u.Temps = append(u.Temps, t.Path)
	}
	dev, ino := ws.Identity()
	u.Hash, err = approvalHash(map[string]any{"schema": "vivary.adopt-undo-plan/v1",
		"target": map[string]any{"canonical_path": ws.Root(), "device": dev, "inode": ino},
		"record": canon.Digest(rb), "steps": u.Steps, "kept": u.Kept, "folders": u.Folders, "temps": u.Temps})
	if err != nil {
		return nil, fail("undo plan could not be hashed")
	}
	return u, nil
}

// stillHidden names the first folder the .gitignore block (whose file now
// holds gitignore) keeps out of Git that will still hold something after
// the undo: anything but the record and the temp files the undo removes.
// A folder it cannot list, or that is a link or a file, counts as holding.
func stillHidden(ws *workspace.Workspace, gitignore []byte, temps []Step) string {
	gone := map[string]bool{scaffold.RecordPath: true}
	for _, t := range temps {
		gone[t.Path] = true
	}
	dirs := []string{".vivary/private", ".vivary/runtime"}
	if bytes.Contains(gitignore, []byte(policy.GitignoreBlockCocoindex)) {
		dirs = append(dirs, ".cocoindex_code")
	}
	for _, dir := range dirs {
		info, err := ws.Lstat(dir)
		if err == nil && !info.Exists {
			continue
		}
		if err != nil || !info.IsDir() {
			return dir + "/"
		}
		entries, err := ws.ReadDir(dir)
		if err != nil {
			return dir + "/"
		}
		for _, e := range entries {
			if !gone[path.Join(dir, e.Name)] {
				return dir + "/"
			}
		}
	}
	return ""
}

// holdsMarker reports whether data still holds a marker line of the block
// adopt appends to rel: a block that is there but not as adopt wrote it.
func holdsMarker(rel string, data []byte) bool {
	start, end := scaffold.AgentsStart, scaffold.AgentsEnd
	if rel == ".gitignore" {
		start, end = scaffold.GitignoreStart, scaffold.GitignoreEnd
	}
	return bytes.Contains(data, []byte(start)) || bytes.Contains(data, []byte(end))
}

// ApplyUndo re-plans the undo under the workspace's write lock and, if its
// hash is the approved one, carries it out through held folder handles: the
// record is marked first (so Doctor can tell a half-undone folder, and a
// new undo finishes it), then each file changes, .gitignore last, each
// checked again right before it is touched; then the record goes, and the
// folders adopt made go when they are empty. A failure puts every file
// back as it was and unmarks the record.
func ApplyUndo(ctx context.Context, target, approved string) (*Undo, error) {
	ws, abs, root, done, err := locked(target, approved, "undo apply requires --undo --apply <hash> from the undo preview")
	if err != nil {
		return nil, err
	}
	defer done()
	u, err := planUndo(ws, abs)
	if err != nil {
		return nil, err
	}
	if u.Hash != approved {
		return nil, fail("undo plan hash mismatch: approved %s, current %s; preview the undo again and approve the plan it shows", approved, u.Hash)
	}
	marked := *u.rec
	marked.Undoing = str(u.Hash)
	mb, err := putRecord(root, &marked, u.recBytes)
	if err != nil {
		return nil, fail("undo refused: the adoption record could not be marked (%v); nothing was changed", err)
	}
	for i, s := range u.Steps {
		if err := ctx.Err(); err != nil {
			return nil, u.rollback(root, i, mb, fmt.Errorf("interrupted"))
		}
		if s.Path == ".gitignore" {
			if dir := stillHidden(ws, s.cur, u.temps); dir != "" {
				return nil, u.rollback(root, i, mb, changed(dir+" now holds files the .gitignore block keeps out of Git"))
			}
		}
		if err := s.do(root); err != nil {
			return nil, u.rollback(root, i, mb, fmt.Errorf("%s: %w", s.Path, err))
		}
	}
	// Then what a killed earlier run left, the folders adopt made (those on
	// the way to the record once the record is gone), and the record: a
	// kill before the record goes leaves it marked, so a new undo finishes.
	if err := execute(root, u.temps); err != nil {
		return nil, fail("undo changed every file, but removing the temp files a killed write left failed (%v); run the undo again to finish", err)
	}
	holdsRecord := func(d string) bool { return strings.HasPrefix(scaffold.RecordPath, d+"/") }
	var problems []string
	rmdirs := func(record bool) {
		for _, d := range u.Folders {
			if holdsRecord(d) != record {
				continue
			}
			// A folder reached through a link is not adopt's any more: it
			// is left, and named below by the link.
			if err := root.RemoveEmptyDir(d); err != nil && !errors.Is(err, write.ErrLink) {
				problems = append(problems, fmt.Sprintf("%s: %v", d, err))
			}
		}
	}
	rmdirs(false)
	if err := removeRecord(root, mb); err != nil {
		return nil, fail("undo changed every file, but removing the adoption record failed (%v); run the undo again to finish", err)
	}
	rmdirs(true)
	for _, d := range u.Folders {
		switch info, err := ws.Lstat(d); {
		case err != nil || !info.Exists:
			// Gone, or behind a link that an outer folder names.
		case info.IsDir():
			u.Left = append(u.Left, UndoKept{d, "it holds files adopt did not make"})
		default:
			u.Left = append(u.Left, UndoKept{d, "it, or a folder above it, is now a link or not a plain folder, so the undo does not go through it"})
		}
	}
	if len(problems) > 0 {
		return nil, fail("undo changed every file and removed its record, but some folders adopt made could not be removed (%s); remove them by hand", strings.Join(problems, "; "))
	}
	return u, nil
}

// changed is a change since the preview that a check of the undo's own
// found (not a file's bytes): it reads as itself, and is write.ErrChanged.
type changed string

func (c changed) Error() string        { return string(c) }
func (c changed) Is(target error) bool { return target == write.ErrChanged }

// do carries out one step, if the file still holds the bytes it was
// planned on.
func (s UndoStep) do(root *write.Root) error {
	folder, name := path.Split(s.Path)
	d, err := root.Dir(strings.TrimSuffix(folder, "/"))
	if err != nil {
		return err
	}
	if s.Operation == UndoRemove {
		data, info, err := d.Read(name, 2*limits.MaxFileBytes)
		if err != nil {
			return err
		}
		if canon.Digest(data) != s.CurrentHash {
			return write.ErrChanged
		}
		return d.Remove(name, info)
	}
	written, err := d.Replace(name, s.result, 2*limits.MaxFileBytes, func(old []byte) bool { return canon.Digest(old) == s.CurrentHash })
	if err != nil {
		return err
	}
	return root.Verify(s.Path, written)
}

// undo puts back what do changed, if the file still holds what do left.
func (s UndoStep) undo(root *write.Root) error {
	folder, name := path.Split(s.Path)
	d, err := root.Dir(strings.TrimSuffix(folder, "/"))
	if err != nil {
		return err
	}
	var written workspace.Info
	if s.Operation == UndoRemove {
		written, err = d.Create(name, s.cur)
	} else {
		written, err = d.Replace(name, s.cur, 2*limits.MaxFileBytes, func(old []byte) bool { return bytes.Equal(old, s.result) })
	}
	if err != nil {
		return err
	}
	return root.Verify(s.Path, written)
}

// rollback puts the first n steps back, last first, and unmarks the record.
func (u *Undo) rollback(root *write.Root, n int, marked []byte, cause error) error {
	var problems []string
	for i := n - 1; i >= 0; i-- {
		if err := u.Steps[i].undo(root); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", u.Steps[i].Path, err))
		}
	}
	if len(problems) == 0 {
		if _, err := putRecord(root, u.rec, marked); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", scaffold.RecordPath, err))
		}
	}
	if len(problems) > 0 {
		return fail("undo failed (%v), and putting the files back was incomplete (%s): run `create-vivary adopt DIR --undo` to preview finishing the undo", cause, strings.Join(problems, "; "))
	}
	if errors.Is(cause, write.ErrChanged) {
		return fail("undo refused: %v (a file changed after the preview); every file was put back: preview the undo again", cause)
	}
	return fail("undo failed (%v); every file was put back", cause)
}
