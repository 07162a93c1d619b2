//go:build unix

package workspace

import (
	"errors"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/vivary-dev/vivary-go/reason"
)

// bindRoot refuses a root that is itself a link, resolves the links above
// it, opens it with O_NOFOLLOW and anchors its (device, inode).
func bindRoot(abs string) (int, string, Info, error) {
	var lst unix.Stat_t
	if err := unix.Lstat(abs, &lst); err != nil {
		return -1, "", Info{}, reason.Wrap(reason.WorkspaceUnavailable, lstatProblem(err), err)
	}
	if lst.Mode&unix.S_IFMT == unix.S_IFLNK {
		return -1, "", Info{}, reason.New(reason.WorkspaceUnavailable, "workspace path is a symbolic link; pass the directory it points to")
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return -1, "", Info{}, reason.Wrap(reason.WorkspaceUnavailable, lstatProblem(err), err)
	}
	real = filepath.Clean(real)
	fd, err := unix.Open(real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		switch {
		case errors.Is(err, unix.ENOTDIR):
			return -1, "", Info{}, reason.New(reason.WorkspaceUnavailable, "workspace path is not a directory; pass the workspace folder")
		case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
			return -1, "", Info{}, reason.Wrap(reason.WorkspaceUnavailable, "workspace directory is unreadable (permission denied); "+
				"give your user read and search permission on it", err)
		}
		return -1, "", Info{}, reason.Wrap(reason.WorkspaceUnavailable, "workspace directory cannot be opened", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, "", Info{}, reason.Wrap(reason.WorkspaceUnavailable, "workspace directory cannot be inspected", err)
	}
	if err := unix.Lstat(real, &lst); err != nil || lst.Dev != st.Dev || lst.Ino != st.Ino || lst.Mode&unix.S_IFMT != unix.S_IFDIR {
		unix.Close(fd)
		return -1, "", Info{}, reason.New(reason.WorkspaceUnavailable, "workspace identity changed during binding")
	}
	return fd, real, infoOf(".", &st), nil
}

// lstatProblem says why the workspace path could not be looked at.
func lstatProblem(err error) string {
	switch {
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return "workspace directory cannot be reached (permission denied on a folder above it); " +
			"give your user search permission on the folders of the path"
	case errors.Is(err, unix.ENOTDIR):
		return "workspace path runs through a file; pass the workspace folder"
	case errors.Is(err, unix.ELOOP):
		return "workspace path has too many links; pass the directory itself"
	case errors.Is(err, unix.ENOENT):
		return "workspace directory does not exist; check the path"
	}
	return "workspace path cannot be inspected; check that it names a folder you can read"
}

// checkRoot is Check's test of the held handle fd and the path against the
// anchored identity want.
func checkRoot(fd int, path string, want Info) error {
	var held unix.Stat_t
	if err := unix.Fstat(fd, &held); err != nil || held.Nlink == 0 {
		return reason.New(reason.WorkspaceUnavailable, "workspace directory was deleted")
	}
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return reason.New(reason.WorkspaceUnavailable, "workspace directory is gone")
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || uint64(st.Dev) != want.Dev || uint64(st.Ino) != want.Ino {
		return reason.New(reason.WorkspaceUnavailable, "workspace directory was replaced")
	}
	return nil
}

func infoOf(name string, st *unix.Stat_t) Info {
	return Info{
		Name: name, Mode: uint32(st.Mode & unix.S_IFMT), Size: st.Size, Dev: uint64(st.Dev), Ino: uint64(st.Ino),
		Nlink: uint64(st.Nlink), Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Exists: true,
	}
}

func closeFD(fd int) error { return unix.Close(fd) }

// reopenDir is a fresh open of "." (not a dup), so each listing has its own
// offset.
func reopenDir(fd int) (int, error) {
	return unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// openDirAt opens the folder name beneath dfd; ErrLink when it is a link
// or not a folder.
func openDirAt(dfd int, name string) (int, error) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return -1, ErrLink
		}
		return -1, err
	}
	return fd, nil
}

// openFileAt opens name beneath dfd for reading with no link followed,
// non-blocking (a FIFO cannot hang the read).
func openFileAt(dfd int, name string) (int, error) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return -1, ErrLink
		}
		return -1, err
	}
	return fd, nil
}

func readFD(fd int, p []byte) (int, error) {
	for {
		n, err := unix.Read(fd, p)
		if err == unix.EINTR {
			continue
		}
		return n, err
	}
}

// listNames lists the folder fd from its start (a held handle may have
// been listed before), buf being the reusable entry buffer.
func listNames(fd int, buf *[]byte) ([]string, error) {
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		return nil, err
	}
	if *buf == nil {
		*buf = make([]byte, 32<<10)
	}
	var names []string
	for {
		n, err := unix.ReadDirent(fd, *buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent((*buf)[:n], -1, names)
	}
	return names, nil
}

// StatAt describes the entry name of an open directory handle without
// following a link; a missing entry returns Info{Exists:false} and no error.
func StatAt(dirfd int, name string) (Info, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return Info{Name: name}, nil
		}
		return Info{}, err
	}
	return infoOf(name, &st), nil
}

// StatFD describes an open file or directory.
func StatFD(fd int, name string) (Info, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return Info{}, err
	}
	return infoOf(name, &st), nil
}

// StatPath describes an absolute path outside any workspace without
// following a final link: a policy input such as the user's Git excludes
// file. A missing path returns Info{Exists:false}.
func StatPath(abs string) Info {
	var st unix.Stat_t
	if err := unix.Lstat(abs, &st); err != nil {
		return Info{Name: filepath.Base(abs)}
	}
	return infoOf(filepath.Base(abs), &st)
}
