package write

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"

	"github.com/vivary-dev/vivary-go/workspace"
)

// temp creates a new temp file in d with perm and returns its name, an open
// handle and its identity.
func (d *Dir) temp(perm uint32) (string, int, workspace.Info, error) {
	for range 100 {
		name := workspace.TempName(d.root.tag, rand.Uint32())
		if err := hook(StepCreate, join(d.rel, name)); err != nil {
			return "", -1, workspace.Info{}, err
		}
		fd, err := createExcl(d.fd, name, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", -1, workspace.Info{}, err
		}
		info, err := workspace.StatFD(fd, name)
		if err != nil {
			closeFD(fd)
			unlinkAt(d.fd, name)
			return "", -1, workspace.Info{}, err
		}
		return name, fd, info, nil
	}
	return "", -1, workspace.Info{}, errors.New("no free temp file name")
}

// fill writes data to the temp file, fsyncs and closes it, and returns its
// identity as written.
func (d *Dir) fill(name string, fd int, data []byte) (workspace.Info, error) {
	defer closeFD(fd)
	if err := hook(StepWrite, join(d.rel, name)); err != nil {
		return workspace.Info{}, err
	}
	for n := 0; n < len(data); {
		m, err := writeFD(fd, data[n:])
		if err != nil {
			return workspace.Info{}, err
		}
		n += m
	}
	if err := hook(StepSync, join(d.rel, name)); err != nil {
		return workspace.Info{}, err
	}
	if err := syncFD(fd); err != nil {
		return workspace.Info{}, err
	}
	return workspace.StatFD(fd, name)
}

// drop removes a temp file of this transaction if it still is the one made.
func (d *Dir) drop(name string, info workspace.Info) {
	if cur, err := workspace.StatAt(d.fd, name); err == nil && cur.Exists && cur.Dev == info.Dev && cur.Ino == info.Ino {
		unlinkAt(d.fd, name)
	}
}

// staged writes data to a fresh temp file in d.
func (d *Dir) staged(data []byte, perm uint32) (string, workspace.Info, error) {
	tmp, fd, made, err := d.temp(perm)
	if err != nil {
		return "", made, err
	}
	info, err := d.fill(tmp, fd, data)
	if err != nil {
		d.drop(tmp, made)
		return "", made, err
	}
	return tmp, info, nil
}

// Create puts a new file name holding data in d: temp file, fsync, rename
// without replacing anything, fsync of the folder. An existing name is
// ErrExists and is left as it was. It returns the new file's identity, for
// Verify and for a later Remove.
func (d *Dir) Create(name string, data []byte) (workspace.Info, error) {
	tmp, info, err := d.staged(data, 0o644)
	if err != nil {
		return info, err
	}
	if err := hook(StepRename, join(d.rel, name)); err != nil {
		d.drop(tmp, info)
		return info, err
	}
	if err := renameAt(d.fd, tmp, name); err != nil {
		d.drop(tmp, info)
		if errors.Is(err, fs.ErrExist) {
			return info, ErrExists
		}
		return info, err
	}
	syncDir(d.fd)
	return info, nil
}

// Replace puts data in place of the existing regular single-link file name
// in d. The new bytes are staged in a temp file with the old file's
// permissions and exchanged with it atomically; the swapped-out bytes (at
// most maxOld) must satisfy want, or the exchange is undone and the result
// is ErrChanged. The swapped-out file is then removed. Where the system
// cannot exchange, the current bytes are checked just before a plain rename.
func (d *Dir) Replace(name string, data []byte, maxOld int64, want func(old []byte) bool) (workspace.Info, error) {
	st, err := workspace.StatAt(d.fd, name)
	if err != nil {
		return workspace.Info{}, err
	}
	if !st.Exists || !st.IsRegular() || st.Nlink != 1 {
		return workspace.Info{}, ErrChanged
	}
	tmp, info, err := d.staged(data, permAt(d.fd, name))
	if err != nil {
		return info, err
	}
	if err := hook(StepRename, join(d.rel, name)); err != nil {
		d.drop(tmp, info)
		return info, err
	}
	err = exchangeAt(d.fd, tmp, name)
	switch {
	case err == nil:
		old, oldInfo, rerr := workspace.ReadAt(d.fd, tmp, maxOld, nil)
		if rerr != nil || !want(old) {
			if xerr := exchangeAt(d.fd, tmp, name); xerr != nil {
				return info, fmt.Errorf("%w, and swapping it back failed (%v): its previous bytes are in a %s file beside it", ErrChanged, xerr, workspace.TempSuffix)
			}
			d.drop(tmp, info)
			return info, ErrChanged
		}
		if err := d.Remove(tmp, oldInfo); err != nil {
			// Keep the outcome whole: the original goes back in place.
			if xerr := exchangeAt(d.fd, tmp, name); xerr != nil {
				return info, fmt.Errorf("%w, and swapping the original back failed (%v): its bytes are in a %s file beside it", err, xerr, workspace.TempSuffix)
			}
			d.drop(tmp, info)
			return info, err
		}
	case errors.Is(err, errNoExchange):
		old, _, rerr := workspace.ReadAt(d.fd, name, maxOld, nil)
		if rerr != nil || !want(old) {
			d.drop(tmp, info)
			return info, ErrChanged
		}
		if err := renameReplace(d.fd, tmp, name); err != nil {
			d.drop(tmp, info)
			return info, err
		}
	default:
		d.drop(tmp, info)
		return info, err
	}
	syncDir(d.fd)
	return info, nil
}

// Restore puts before back in place of name, whose bytes must still be
// after (what this transaction wrote): the undo of a Replace.
func (d *Dir) Restore(name string, before, after []byte) error {
	if err := hook(StepRestore, join(d.rel, name)); err != nil {
		return err
	}
	_, err := d.Replace(name, before, int64(len(after)), func(old []byte) bool { return bytes.Equal(old, after) })
	return err
}

// Remove unlinks name in d if it is still the file want describes; a name
// already gone is not an error, another file under it is ErrChanged.
func (d *Dir) Remove(name string, want workspace.Info) error {
	if err := hook(StepUnlink, join(d.rel, name)); err != nil {
		return err
	}
	cur, err := workspace.StatAt(d.fd, name)
	switch {
	case err != nil:
		return err
	case !cur.Exists:
		return nil
	case cur.Dev != want.Dev || cur.Ino != want.Ino:
		return ErrChanged
	}
	if err := unlinkAt(d.fd, name); err != nil {
		return err
	}
	syncDir(d.fd)
	return nil
}

// Stat describes name in d without following a link.
func (d *Dir) Stat(name string) (workspace.Info, error) { return workspace.StatAt(d.fd, name) }

// Read reads name in d: no link, regular, single link, at most max bytes.
func (d *Dir) Read(name string, max int64) ([]byte, workspace.Info, error) {
	return workspace.ReadAt(d.fd, name, max, nil)
}

// Sweep removes the temp files this writer's tag left in d, as a killed
// earlier run leaves them, and returns their workspace-relative paths.
func (d *Dir) Sweep() ([]string, error) {
	names, err := workspace.NamesAt(d.fd)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, n := range names {
		if tag, ok := workspace.TempTag(n); !ok || tag != d.root.tag {
			continue
		}
		info, err := workspace.StatAt(d.fd, n)
		if err != nil || !info.IsRegular() {
			continue
		}
		if err := d.Remove(n, info); err != nil {
			return removed, err
		}
		removed = append(removed, join(d.rel, n))
	}
	return removed, nil
}
