//go:build unix

package write

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/vivary-dev/vivary-go/workspace"
)

func closeFD(fd int) { unix.Close(fd) }

// mkdirAt makes the folder name in dfd; an existing name satisfies
// errors.Is(err, fs.ErrExist).
func mkdirAt(dfd int, name string) error { return unix.Mkdirat(dfd, name, 0o755) }

// syncDir makes the folder's entries durable.
func syncDir(dfd int) { _ = unix.Fsync(dfd) }

// removeDirAt removes the empty folder name in dfd.
func removeDirAt(dfd int, name string) error { return unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR) }

// notEmpty reports the error of removing a folder that holds something.
func notEmpty(err error) bool { return errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) }

// unlinkAt removes the file name in dfd.
func unlinkAt(dfd int, name string) error { return unix.Unlinkat(dfd, name, 0) }

// createExcl makes the new file name in dfd, open for writing; an existing
// name, of any kind, satisfies errors.Is(err, fs.ErrExist).
func createExcl(dfd int, name string, perm uint32) (int, error) {
	return unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
}

func writeFD(fd int, p []byte) (int, error) {
	for {
		n, err := unix.Write(fd, p)
		if err == unix.EINTR {
			continue
		}
		return n, err
	}
}

func syncFD(fd int) error { return unix.Fsync(fd) }

// renameReplace moves from onto to in dfd, replacing it.
func renameReplace(dfd int, from, to string) error { return unix.Renameat(dfd, from, dfd, to) }

// permAt is the permission bits of name in dfd, for a replacement to keep.
func permAt(dfd int, name string) uint32 {
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return 0o644
	}
	return uint32(st.Mode & 0o7777)
}

// lockRoot takes an exclusive, non-blocking flock on a fresh handle of
// the root folder (no lock file; a killed holder frees it) and returns
// what unlock releases.
func lockRoot(ws *workspace.Workspace) (int, error) {
	fd, err := ws.OpenDir("")
	if err != nil {
		return -1, err
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EWOULDBLOCK) {
			return -1, ErrBusy
		}
		return -1, err
	}
	return fd, nil
}

func unlock(lock int) { unix.Close(lock) }

// linkNoReplace is the portable no-replace rename: a new hard link fails
// with EEXIST if to exists, then the temp name is removed.
func linkNoReplace(dfd int, from, to string) error {
	if err := unix.Linkat(dfd, from, dfd, to, 0); err != nil {
		return err
	}
	return unix.Unlinkat(dfd, from, 0)
}

// openBase opens the existing folder abs as the user named it (a link
// resolves), for MkdirTarget.
func openBase(abs string) (int, error) {
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOTDIR) {
		return -1, errBaseNotDir
	}
	return fd, err
}
