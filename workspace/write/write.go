// Package write owns every write Vivary makes into a workspace: the governed
// record, init's scaffold and adopt's changes all go through it. Each step
// acts through directory handles opened O_DIRECTORY|O_NOFOLLOW one component
// at a time from the bound root and held for the whole transaction (on
// Windows by the means sys_windows.go describes): folders
// are made with mkdirat, files are written to a temp file created with
// openat(O_CREAT|O_EXCL|O_NOFOLLOW) in their own folder, fsynced, and put in
// place with renameat2(RENAME_NOREPLACE) (a new file) or an atomic exchange
// whose swapped-out bytes must be the ones the caller expected (an existing
// file), and undone with unlinkat. Nothing is ever done by path, so swapping
// a folder for a link mid-way cannot send a byte outside the workspace; after
// a file is placed, Verify resolves its path afresh from the root and
// requires the very file that was written, so such a swap is noticed and
// undone instead of reported as done.
//
// This package never follows a link, never replaces a file whose bytes it was
// not told to expect, and never removes anything but its own temp files and
// what the caller created or swapped out in the same transaction.
package write

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/vivary-dev/vivary-go/workspace"
)

// Step names one step of a write, for Hook.
type Step string

// The steps, in the order a create goes through them.
const (
	StepMkdir   Step = "mkdir"   // make a missing folder
	StepCreate  Step = "create"  // create the temp file
	StepWrite   Step = "write"   // write its bytes
	StepSync    Step = "sync"    // fsync it
	StepRename  Step = "rename"  // put it in place (no replace, or exchange)
	StepUnlink  Step = "unlink"  // remove a file (a swapped-out original, a temp, a rolled-back create)
	StepRmdir   Step = "rmdir"   // remove a folder this transaction made
	StepRestore Step = "restore" // put the previous bytes of a file back
)

// Hook runs before every step with the workspace-relative path the step acts
// on; an error it returns fails the step. Only tests set it (to move folders
// about, inject faults, or stop the process at a chosen step); it is nil in
// the shipped binaries.
var Hook func(step Step, rel string) error

func hook(step Step, rel string) error {
	if Hook == nil {
		return nil
	}
	return Hook(step, rel)
}

// Errors of a write. Their text says what happened, for the person at the
// terminal, without naming a path.
var (
	ErrLink    = errors.New("a folder on the way is a link or not a plain folder")
	ErrMoved   = errors.New("a folder on the way was moved or replaced by a link during the write")
	ErrChanged = errors.New("a file is not what the plan saw: it changed after the plan")
	ErrExists  = errors.New("a file appeared after the plan")
	ErrBusy    = errors.New("another create-vivary write is running in this workspace")
)

// Root is a bound workspace opened for one write transaction. It holds the
// handle of every folder it reached or made until Close.
type Root struct {
	ws   *workspace.Workspace
	tag  string
	dirs map[string]*Dir
	lock int
}

// Dir is a held folder handle.
type Dir struct {
	root    *Root
	fd      int
	rel     string // "" is the root
	info    workspace.Info
	created bool
}

// Open opens ws for writing. Temp files are named .<tag>-<n>.vivary-tmp, so
// Sweep can tell this writer's leftovers from anything else.
func Open(ws *workspace.Workspace, tag string) (*Root, error) {
	fd, err := ws.OpenDir("")
	if err != nil {
		return nil, err
	}
	info, err := workspace.StatFD(fd, ".")
	dev, ino := ws.Identity()
	if err != nil || info.Dev != dev || info.Ino != ino {
		closeFD(fd)
		return nil, ErrMoved
	}
	r := &Root{ws: ws, tag: tag, dirs: map[string]*Dir{}, lock: -1}
	r.dirs[""] = &Dir{root: r, fd: fd, info: info}
	return r, nil
}

// Close releases every held handle and the lock.
func (r *Root) Close() error {
	for _, d := range r.dirs {
		closeFD(d.fd)
	}
	r.dirs = map[string]*Dir{}
	if r.lock >= 0 {
		unlock(r.lock)
		r.lock = -1
	}
	return nil
}

// Lock takes an exclusive, non-blocking lock on the root folder (flock; on
// Windows a named event of the root's identity), held until Close, so two
// writers never interleave in one workspace. No lock file is made, and a
// killed holder frees it.
func (r *Root) Lock() error {
	lock, err := lockRoot(r.ws)
	if err != nil {
		return err
	}
	r.lock = lock
	return nil
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func splitRel(rel string) (dir, name string) {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i], rel[i+1:]
	}
	return "", rel
}

func checkRel(rel string) error {
	if rel == "" {
		return nil
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("write: %q is not a clean relative path", rel)
		}
	}
	return nil
}

// Dir returns the held handle of the existing folder rel, reaching it from
// the nearest held ancestor with no link followed. A missing folder is an
// error satisfying errors.Is(err, fs.ErrNotExist); a link is ErrLink.
func (r *Root) Dir(rel string) (*Dir, error) {
	d, _, err := r.reach(rel, false)
	return d, err
}

// MkdirAll returns the held handle of the folder rel, making each missing
// folder on the way with mkdirat. It returns the folders it made, outermost
// first; on failure it removes them again before returning.
func (r *Root) MkdirAll(rel string) (*Dir, []string, error) {
	d, made, err := r.reach(rel, true)
	if err != nil {
		if uerr := r.RemoveMade(made); uerr != nil {
			err = fmt.Errorf("%w; and removing the folders it made failed: %v", err, uerr)
		}
		return nil, nil, err
	}
	return d, made, nil
}

func (r *Root) reach(rel string, create bool) (*Dir, []string, error) {
	if err := checkRel(rel); err != nil {
		return nil, nil, err
	}
	if d, ok := r.dirs[rel]; ok {
		return d, nil, nil
	}
	parentRel, name := splitRel(rel)
	parent, made, err := r.reach(parentRel, create)
	if err != nil {
		return nil, made, err
	}
	open := func() (int, error) { return workspace.OpenDirAt(parent.fd, name) }
	fd, err := open()
	created := false
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := hook(StepMkdir, rel); err != nil {
			return nil, made, err
		}
		if err := mkdirAt(parent.fd, name); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, made, err
		} else if err == nil {
			created = true
		}
		fd, err = open()
	}
	if err != nil {
		if errors.Is(err, workspace.ErrLink) {
			err = ErrLink
		}
		// A folder this call made that is no longer a plain folder under
		// that name is not in made: whatever replaced it is left alone.
		return nil, made, err
	}
	info, err := workspace.StatFD(fd, name)
	if err != nil {
		closeFD(fd)
		return nil, made, err
	}
	d := &Dir{root: r, fd: fd, rel: rel, info: info, created: created}
	r.dirs[rel] = d
	if created {
		made = append(made, rel)
		syncDir(parent.fd)
	}
	return d, made, nil
}

// RemoveMade removes the folders MkdirAll made, innermost first, each through
// its parent's held handle and only while that name still is the very
// folder made and it is empty. A folder that was moved or replaced is left
// alone and reported.
func (r *Root) RemoveMade(made []string) error {
	var errs []error
	for i := len(made) - 1; i >= 0; i-- {
		rel := made[i]
		d, ok := r.dirs[rel]
		parentRel, name := splitRel(rel)
		parent, pok := r.dirs[parentRel]
		if !ok || !pok {
			continue
		}
		if err := hook(StepRmdir, rel); err != nil {
			errs = append(errs, err)
			continue
		}
		cur, err := workspace.StatAt(parent.fd, name)
		switch {
		case err != nil:
			errs = append(errs, err)
			continue
		case !cur.Exists:
			continue
		case cur.Dev != d.info.Dev || cur.Ino != d.info.Ino:
			errs = append(errs, fmt.Errorf("a folder this write made was moved or replaced and was left alone"))
			continue
		}
		// Its own handle goes first: Windows keeps a folder whose removal
		// is pending while a handle on it is open, and its parent then
		// is not empty.
		closeFD(d.fd)
		delete(r.dirs, rel)
		if err := removeDirAt(parent.fd, name); err != nil {
			errs = append(errs, fmt.Errorf("a folder this write made could not be removed: %w", err))
			continue
		}
		syncDir(parent.fd)
	}
	return errors.Join(errs...)
}

// Verify resolves rel afresh from the root, one component at a time with no
// link followed, and requires it to be the very file want describes, with
// the root itself still the anchored folder. A folder swapped for a link or
// another folder after the write started fails with ErrMoved.
func (r *Root) Verify(rel string, want workspace.Info) error {
	if err := r.ws.Check(); err != nil {
		return ErrMoved
	}
	cur, err := r.ws.Lstat(rel)
	if err != nil || !cur.Exists || cur.Dev != want.Dev || cur.Ino != want.Ino {
		return ErrMoved
	}
	return nil
}

// Workspace is the bound workspace the root writes into.
func (r *Root) Workspace() *workspace.Workspace { return r.ws }

// Rel is the workspace-relative path of the folder ("" for the root).
func (d *Dir) Rel() string { return d.rel }

// RemoveEmptyDir removes the folder rel through its parent's held handle if
// it is a plain folder and empty; a missing or non-empty folder is left as
// it is without error. It serves recoveries, which know from their journal
// which folders an earlier, interrupted run made.
func (r *Root) RemoveEmptyDir(rel string) error {
	if rel == "" {
		return errors.New("write: the root is never removed")
	}
	parentRel, name := splitRel(rel)
	parent, err := r.Dir(parentRel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	cur, err := workspace.StatAt(parent.fd, name)
	if err != nil || !cur.Exists || !cur.IsDir() {
		return err
	}
	if err := hook(StepRmdir, rel); err != nil {
		return err
	}
	if d, ok := r.dirs[rel]; ok {
		closeFD(d.fd)
		delete(r.dirs, rel)
	}
	if err := removeDirAt(parent.fd, name); err != nil {
		if notEmpty(err) || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	syncDir(parent.fd)
	return nil
}
