package write

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vivary-dev/vivary-go/workspace"
)

// Target is a folder that did not exist, made together with its missing
// parent folders, before it can be bound as a workspace (init's target).
type Target struct {
	made []madeDir // outermost first
}

type madeDir struct {
	parent int // held handle of the folder it was made in
	fd     int
	name   string
	info   workspace.Info
}

// MkdirTarget makes the folder abs (absolute and clean) and every missing
// folder above it. The nearest existing ancestor is opened as the user named
// it (a link above it resolves, as when a workspace is bound); each new
// folder is made with mkdirat in the held handle of the one above and
// opened with no link followed. A target that already exists is os.ErrExist.
func MkdirTarget(abs string) (*Target, error) {
	if !filepath.IsAbs(abs) || filepath.Clean(abs) != abs {
		return nil, fmt.Errorf("write: %q is not an absolute clean path", abs)
	}
	var missing []string
	base := abs
	for {
		if _, err := os.Lstat(base); err == nil {
			break
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		parent := filepath.Dir(base)
		if parent == base {
			return nil, errors.New("no existing folder above the target")
		}
		missing = append([]string{filepath.Base(base)}, missing...)
		base = parent
	}
	if len(missing) == 0 {
		return nil, os.ErrExist
	}
	fd, err := openBase(base)
	if err != nil {
		return nil, err
	}
	t := &Target{}
	parent := fd
	for _, name := range missing {
		if err := hook(StepMkdir, name); err != nil {
			return nil, t.fail(fd, err)
		}
		if err := mkdirAt(parent, name); err != nil {
			return nil, t.fail(fd, err)
		}
		child, err := workspace.OpenDirAt(parent, name)
		if err != nil {
			if errors.Is(err, workspace.ErrLink) {
				err = ErrMoved
			}
			return nil, t.fail(fd, err)
		}
		info, err := workspace.StatFD(child, name)
		if err != nil {
			closeFD(child)
			return nil, t.fail(fd, err)
		}
		syncDir(parent)
		t.made = append(t.made, madeDir{parent: parent, fd: child, name: name, info: info})
		parent = child
	}
	return t, nil
}

// fail undoes what was made so far and closes the base handle.
func (t *Target) fail(base int, err error) error {
	if uerr := t.Undo(); uerr != nil {
		err = fmt.Errorf("%w; and removing the folders made failed: %v", err, uerr)
	}
	if len(t.made) == 0 {
		closeFD(base)
	}
	t.Close()
	return err
}

// errBaseNotDir is openBase's answer for a file where a folder was expected.
var errBaseNotDir = errors.New("a path above the target is a file, not a folder")

// Made is how many folders were made, the target included.
func (t *Target) Made() int { return len(t.made) }

// Is reports whether info describes the target folder itself.
func (t *Target) Is(info workspace.Info) bool {
	last := t.made[len(t.made)-1].info
	return info.Dev == last.Dev && info.Ino == last.Ino
}

// Undo removes the folders made, innermost first, each through the handle of
// the folder above it and only while it still is the folder made and empty.
func (t *Target) Undo() error {
	var errs []error
	for i := len(t.made) - 1; i >= 0; i-- {
		m := t.made[i]
		if err := hook(StepRmdir, m.name); err != nil {
			errs = append(errs, err)
			continue
		}
		cur, err := workspace.StatAt(m.parent, m.name)
		switch {
		case err != nil:
			errs = append(errs, err)
			continue
		case !cur.Exists:
			continue
		case cur.Dev != m.info.Dev || cur.Ino != m.info.Ino:
			errs = append(errs, errors.New("a folder this write made was moved or replaced and was left alone"))
			continue
		}
		if err := removeDirAt(m.parent, m.name); err != nil {
			errs = append(errs, fmt.Errorf("a folder this write made could not be removed: %w", err))
			continue
		}
		syncDir(m.parent)
	}
	return errors.Join(errs...)
}

// Close releases the held handles.
func (t *Target) Close() {
	for i, m := range t.made {
		if i == 0 {
			closeFD(m.parent)
		}
		closeFD(m.fd)
	}
	t.made = nil
}
