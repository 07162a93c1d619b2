// Package greenfield owns `create-vivary init`: it puts the exact files of a
// new thin-v0.3 workspace (package scaffold renders them) into a new or
// empty folder, making that folder and any missing folder above it, runs
// Doctor, and removes everything it made if anything fails. Every step goes
// through package write's held, no-follow folder handles and no-replace
// renames, never by path. It never writes into a folder that holds anything
// but the scaffold's own files, never replaces a file, and never removes
// anything it did not make in the same run.
package greenfield

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/vivary-dev/vivary-go/doctor"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/workspace"
	"github.com/vivary-dev/vivary-go/workspace/write"
)

// fail is this writer's refusal: a reason.Refusal, in words for the person
// at the terminal.
func fail(format string, a ...any) error { return reason.Refuse(format, a...) }

// Options are the choices of one init.
type Options struct {
	Preset   string
	Adapters []string
	DryRun   bool // plan only: write nothing
}

// Result says what init did or, with DryRun, would do.
type Result struct {
	Root               string   // the absolute target
	Preset             string   //
	Adapters           []string // sorted
	Files              []string // every file of the scaffold, in write order
	Writes             []string // the files this run wrote (or would write)
	FoldersMade        int      // the target and missing folders above it, made (or to make)
	AlreadyInitialized bool     // the target already is exactly the scaffold: nothing to do
	Doctor             *doctor.Report
}

// tempTag names init's temp files: .init-<n>.vivary-tmp.
const tempTag = "init"

// Init creates the workspace at target (see the package doc).
func Init(ctx context.Context, target string, opt Options) (*Result, error) {
	if !slices.Contains(scaffold.Presets, opt.Preset) {
		return nil, fail("unknown preset; choose one of %s", strings.Join(scaffold.Presets, ", "))
	}
	adapters, err := scaffold.CheckAdapters(opt.Adapters)
	if err != nil {
		return nil, fail("%v", err)
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return nil, fail("target cannot be made absolute")
	}
	files := scaffold.Files(scaffold.ProjectName(abs), opt.Preset, adapters...)
	res := &Result{Root: abs, Preset: opt.Preset, Adapters: adapters}
	for _, f := range files {
		res.Files = append(res.Files, f.Path)
	}
	st, err := os.Lstat(abs)
	switch {
	case errors.Is(err, syscall.ENOTDIR):
		return nil, errAboveIsFile
	case errors.Is(err, os.ErrNotExist):
		res.Writes = res.Files
		if opt.DryRun {
			res.FoldersMade, err = missingFolders(abs)
			return res, err
		}
		return res, create(ctx, abs, files, res)
	case err != nil:
		return nil, fail("target cannot be inspected; check the permissions of the folders above it")
	case !st.IsDir():
		return nil, fail("target must be a new or empty directory (it is a file or a link); pick another path")
	}
	ws, err := workspace.Bind(abs)
	if err != nil {
		return nil, fail("target must be a new or empty directory that can be opened")
	}
	defer ws.Close()
	missing, temps, err := survey(ws, files)
	if err != nil {
		return nil, err
	}
	for _, f := range missing {
		res.Writes = append(res.Writes, f.Path)
	}
	if len(missing) == 0 && len(temps) == 0 {
		res.AlreadyInitialized = true
		return res, nil
	}
	if opt.DryRun {
		return res, nil
	}
	res.Doctor, err = fill(ctx, ws, abs, missing, temps)
	return res, err
}

var errAboveIsFile = fail("init cannot make the target: a path above it is a file, not a folder; pick another target")

// missingFolders counts the folders, the target included, that do not exist.
func missingFolders(abs string) (int, error) {
	n := 0
	for p := abs; ; p = filepath.Dir(p) {
		st, err := os.Lstat(p)
		if err == nil {
			if !st.IsDir() && st.Mode()&os.ModeSymlink == 0 {
				return 0, errAboveIsFile
			}
			return n, nil
		}
		if !errors.Is(err, os.ErrNotExist) || filepath.Dir(p) == p {
			return 0, fail("init cannot make the target: the folders above it cannot be inspected")
		}
		n++
	}
}

// create makes the target and the folders above it, binds it, fills it, and
// removes all of it again if anything fails.
func create(ctx context.Context, abs string, files []scaffold.File, res *Result) error {
	t, err := write.MkdirTarget(abs)
	if err != nil {
		return fail("init cannot make the target folder: %v", err)
	}
	defer t.Close()
	res.FoldersMade = t.Made()
	ws, err := workspace.Bind(abs)
	if err == nil {
		dev, ino := ws.Identity()
		if !t.Is(workspace.Info{Dev: dev, Ino: ino}) {
			ws.Close()
			err = write.ErrMoved
		}
	}
	if err == nil {
		res.Doctor, err = fill(ctx, ws, abs, files, nil)
		ws.Close()
	} else {
		err = fail("init failed: the folder it made was moved or replaced before it could be opened")
	}
	if err != nil {
		if uerr := t.Undo(); uerr != nil {
			return fail("%v; removing the folders init made failed: %v", err, uerr)
		}
	}
	return err
}

// survey reads the target and returns the scaffold files it lacks and the
// temp files a killed init left. Anything else in it, or a scaffold file
// with other bytes, refuses: init never writes beside the owner's files.
func survey(ws *workspace.Workspace, files []scaffold.File) ([]scaffold.File, []string, error) {
	want := map[string]string{}
	folders := map[string]bool{}
	for _, f := range files {
		want[f.Path] = f.Content
		for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
			folders[d] = true
		}
	}
	notEmpty := fail("target is not empty; init only creates a new workspace (to bring an existing folder under Vivary, use create-vivary adopt)")
	present := map[string]bool{}
	var temps []string
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := ws.ReadDir(dir)
		if err != nil {
			return fail("target cannot be read; check its permissions")
		}
		for _, e := range entries {
			rel := e.Name
			if dir != "" {
				rel = dir + "/" + e.Name
			}
			switch {
			case e.IsDir() && folders[rel]:
				if err := walk(rel); err != nil {
					return err
				}
			case !e.IsRegular():
				return notEmpty
			case want[rel] != "":
				data, _, err := ws.ReadFile(rel, int64(len(want[rel])), nil)
				if err != nil || string(data) != want[rel] {
					return notEmpty
				}
				present[rel] = true
			default:
				if tag, ok := workspace.TempTag(e.Name); ok && tag == tempTag {
					temps = append(temps, rel)
					continue
				}
				return notEmpty
			}
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil, nil, err
	}
	var missing []scaffold.File
	for _, f := range files {
		if !present[f.Path] {
			missing = append(missing, f)
		}
	}
	return missing, temps, nil
}

// placed is one file this run put in place.
type placed struct {
	dir  *write.Dir
	name string
	info workspace.Info
}

// fill writes the missing files into the bound target in scaffold order
// (the .gitignore block first, so private paths are ignored before anything
// else exists), checks each one's identity, runs Doctor, and on any failure
// removes what it wrote and the folders it made.
func fill(ctx context.Context, ws *workspace.Workspace, abs string, missing []scaffold.File, temps []string) (*doctor.Report, error) {
	root, err := write.Open(ws, tempTag)
	if err != nil {
		return nil, fail("init failed: the target cannot be opened for writing")
	}
	defer root.Close()
	if err := root.Lock(); err != nil {
		if errors.Is(err, write.ErrBusy) {
			return nil, fail("init refused: another create-vivary write is running in this folder")
		}
		return nil, fail("init refused: the target cannot be locked for writing (%v)", err)
	}
	for _, tmp := range temps {
		dir := path.Dir(tmp)
		if dir == "." {
			dir = ""
		}
		d, err := root.Dir(dir)
		if err == nil {
			_, err = d.Sweep()
		}
		if err != nil {
			return nil, fail("init refused: a temp file a killed init left cannot be removed (%v)", err)
		}
	}
	var done []placed
	var made []string
	undo := func(cause error) error {
		var errs []error
		for i := len(done) - 1; i >= 0; i-- {
			if err := done[i].dir.Remove(done[i].name, done[i].info); err != nil {
				errs = append(errs, err)
			}
		}
		if err := root.RemoveMade(made); err != nil {
			errs = append(errs, err)
		}
		if err := errors.Join(errs...); err != nil {
			return fail("%v; rollback failed: %v", cause, err)
		}
		return cause
	}
	for _, f := range missing {
		folder, name := path.Split(f.Path)
		d, m, err := root.MkdirAll(strings.TrimSuffix(folder, "/"))
		if err != nil {
			return nil, undo(fail("init failed and rolled back: %v", err))
		}
		made = append(made, m...)
		info, err := d.Create(name, []byte(f.Content))
		if err != nil {
			return nil, undo(fail("init failed and rolled back: %v", err))
		}
		done = append(done, placed{d, name, info})
		if err := root.Verify(f.Path, info); err != nil {
			return nil, undo(fail("init refused and rolled back: %v", err))
		}
	}
	rep := doctor.Inspect(ctx, produce.NewReader(ws), abs)
	if !rep.OK {
		return nil, undo(fail("Doctor failed after init and the files were removed: %s", strings.Join(rep.Errors, "; ")))
	}
	return rep, nil
}
