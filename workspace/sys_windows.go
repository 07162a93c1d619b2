package workspace

import (
	"errors"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/vivary-dev/vivary-go/reason"
)

// On Windows a handle is held where Linux holds a descriptor, in the same
// int (a handle value fits; -1 is INVALID_HANDLE_VALUE). Every entry is
// opened with NtCreateFile relative to its folder's handle and
// FILE_OPEN_REPARSE_POINT, so no symbolic link, junction or mount point is
// followed: what is opened is the reparse point itself, and its attribute
// makes it a link here. The opened object's own name is then compared with
// the name asked for, so an 8.3 short name (SECRET~1.MD), another spelling
// of its case or any alias the filesystem resolves never reaches an entry
// under a name the walk and the rules did not judge.

// The FILE_*_INFO layouts GetFileInformationByHandleEx fills.
type fileBasicInfo struct {
	CreationTime, LastAccessTime, LastWriteTime, ChangeTime int64
	FileAttributes                                          uint32
	_                                                       uint32
}

type fileStandardInfo struct {
	AllocationSize, EndOfFile int64
	NumberOfLinks             uint32
	DeletePending, Directory  bool
	_                         [2]byte
}

type fileIDInfo struct {
	VolumeSerialNumber uint64
	FileID             [16]byte
}

const (
	shareAll = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE
	// dirAccess lists, traverses and describes a folder.
	dirAccess = windows.FILE_LIST_DIRECTORY | windows.FILE_TRAVERSE | windows.FILE_READ_ATTRIBUTES | windows.SYNCHRONIZE
	// epochDelta is 1601-01-01 to 1970-01-01 in 100 ns ticks.
	epochDelta = 116444736000000000
)

func handle(fd int) windows.Handle { return windows.Handle(uintptr(fd)) }

func closeFD(fd int) error { return windows.CloseHandle(handle(fd)) }

// errAbsent is what a name Windows would not read as one plain entry
// answers: as if nothing were there.
var errAbsent error = windows.ERROR_FILE_NOT_FOUND

// plainName reports a name NtCreateFile takes as one entry of the folder:
// no separator, no stream (":"), not "", "." or "..".
func plainName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "\\/:\x00")
}

// ntOpen opens name beneath the folder handle root (name "" is root
// itself) without following a reparse point.
func ntOpen(root windows.Handle, name string, access, disposition, options, attrs uint32) (windows.Handle, error) {
	u, err := windows.NewNTUnicodeString(name)
	if err != nil {
		return windows.InvalidHandle, errAbsent
	}
	oa := windows.OBJECT_ATTRIBUTES{RootDirectory: root, ObjectName: u, Attributes: windows.OBJ_CASE_INSENSITIVE}
	oa.Length = uint32(unsafe.Sizeof(oa))
	var h windows.Handle
	var iosb windows.IO_STATUS_BLOCK
	err = windows.NtCreateFile(&h, access, &oa, &iosb, nil, attrs, shareAll, disposition,
		options|windows.FILE_OPEN_REPARSE_POINT|windows.FILE_SYNCHRONOUS_IO_NONALERT, 0, 0)
	if err != nil {
		return windows.InvalidHandle, ntError(err)
	}
	return h, nil
}

// ntError turns an NTSTATUS into the Win32 error it stands for, so
// errors.Is(err, fs.ErrNotExist) and the like hold.
func ntError(err error) error {
	var st windows.NTStatus
	if errors.As(err, &st) {
		switch st {
		case windows.STATUS_NOT_A_DIRECTORY, windows.STATUS_STOPPED_ON_SYMLINK:
			return ErrLink
		}
		return st.Errno()
	}
	return err
}

// actualName is the last component of the name the filesystem holds for
// the open object h.
func actualName(h windows.Handle) (string, error) {
	buf := make([]byte, 4+2*1024)
	for {
		err := windows.GetFileInformationByHandleEx(h, windows.FileNameInfo, &buf[0], uint32(len(buf)))
		if err == windows.ERROR_MORE_DATA && len(buf) < 1<<20 {
			buf = make([]byte, 2*len(buf))
			continue
		}
		if err != nil {
			return "", err
		}
		break
	}
	n := *(*uint32)(unsafe.Pointer(&buf[0])) / 2
	if int(n) > (len(buf)-4)/2 {
		return "", windows.ERROR_INVALID_DATA
	}
	full := string(utf16.Decode(unsafe.Slice((*uint16)(unsafe.Pointer(&buf[4])), n)))
	return full[strings.LastIndexByte(full, '\\')+1:], nil
}

// openNamed opens name beneath dfd and requires the object opened to hold
// exactly that name.
func openNamed(dfd int, name string, access, options uint32) (windows.Handle, error) {
	if !plainName(name) {
		return windows.InvalidHandle, errAbsent
	}
	h, err := ntOpen(handle(dfd), name, access, windows.FILE_OPEN, options, 0)
	if err != nil {
		return windows.InvalidHandle, err
	}
	got, err := actualName(h)
	if err != nil || got != name {
		windows.CloseHandle(h)
		if err != nil {
			return windows.InvalidHandle, err
		}
		return windows.InvalidHandle, errAbsent
	}
	return h, nil
}

// infoOfHandle describes an open object: a reparse point of any kind is a
// link, the identity the volume serial number and the 128-bit file id (its
// lower half in Ino, folded with its upper half, which IDHigh keeps).
func infoOfHandle(h windows.Handle, name string) (Info, error) {
	var b fileBasicInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&b)), uint32(unsafe.Sizeof(b))); err != nil {
		return Info{}, err
	}
	var s fileStandardInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileStandardInfo, (*byte)(unsafe.Pointer(&s)), uint32(unsafe.Sizeof(s))); err != nil {
		return Info{}, err
	}
	var id fileIDInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileIdInfo, (*byte)(unsafe.Pointer(&id)), uint32(unsafe.Sizeof(id))); err != nil {
		return Info{}, err
	}
	lo := *(*uint64)(unsafe.Pointer(&id.FileID[0]))
	hi := *(*uint64)(unsafe.Pointer(&id.FileID[8]))
	mode := uint32(modeRegular)
	switch {
	case b.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0:
		mode = modeLink
	case b.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0 || s.Directory:
		mode = modeDir
	}
	links := uint64(s.NumberOfLinks)
	if s.DeletePending {
		links = 0
	}
	return Info{
		Name: name, Mode: mode, Size: s.EndOfFile, Dev: id.VolumeSerialNumber,
		Ino: lo ^ hi*0x9e3779b97f4a7c15, IDHigh: hi, Nlink: links,
		Mtime: (b.LastWriteTime - epochDelta) * 100, Ctime: (b.ChangeTime - epochDelta) * 100, Exists: true,
	}, nil
}

// openPath opens an absolute path without following a reparse point at its
// last component (the folders above it resolve as Windows resolves them).
func openPath(abs string) (windows.Handle, error) {
	if len(abs) >= 240 && !strings.HasPrefix(abs, `\\`) && filepath.VolumeName(abs) != "" {
		abs = `\\?\` + abs
	}
	p, err := windows.UTF16PtrFromString(abs)
	if err != nil {
		return windows.InvalidHandle, err
	}
	return windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES|windows.FILE_LIST_DIRECTORY|windows.FILE_TRAVERSE|windows.SYNCHRONIZE,
		shareAll, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
}

func statOpenPath(abs string) (Info, error) {
	h, err := openPath(abs)
	if err != nil {
		return Info{}, err
	}
	defer windows.CloseHandle(h)
	return infoOfHandle(h, filepath.Base(abs))
}

// bindRoot refuses a root that is itself a reparse point, resolves the
// links above it, holds a handle on it opened without following one and
// anchors its volume serial number and 128-bit file id, refusing a zero id.
func bindRoot(abs string) (int, string, Info, error) {
	fail := func(msg string, err error) (int, string, Info, error) {
		if err == nil {
			return -1, "", Info{}, reason.New(reason.WorkspaceUnavailable, msg)
		}
		return -1, "", Info{}, reason.Wrap(reason.WorkspaceUnavailable, msg, err)
	}
	first, err := statOpenPath(abs)
	if err != nil {
		return fail(openProblem(err), err)
	}
	if first.IsLink() {
		return fail("workspace path is a symbolic link or junction; pass the folder it points to", nil)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fail(openProblem(err), err)
	}
	real = filepath.Clean(real)
	h, err := openPath(real)
	if err != nil {
		return fail(openProblem(err), err)
	}
	info, err := infoOfHandle(h, ".")
	problem := ""
	switch {
	case err != nil:
		problem = "workspace directory cannot be inspected"
	case info.IsLink():
		problem = "workspace identity changed during binding"
	case !info.IsDir():
		problem = "workspace path is not a directory; pass the workspace folder"
	case info.Ino == 0 && info.IDHigh == 0:
		problem = "workspace directory has no stable file identity (its file system gives it no file id, " +
			"so a replaced folder could not be told from it); use a folder on an NTFS or ReFS volume"
	}
	if problem != "" {
		windows.CloseHandle(h)
		return fail(problem, err)
	}
	if now, err := statOpenPath(real); err != nil || !sameID(now, info) {
		windows.CloseHandle(h)
		return fail("workspace identity changed during binding", nil)
	}
	return int(h), real, info, nil
}

func sameID(a, b Info) bool { return a.Dev == b.Dev && a.Ino == b.Ino && a.IDHigh == b.IDHigh }

// openProblem says why the workspace path could not be opened.
func openProblem(err error) string {
	switch {
	case errors.Is(err, windows.ERROR_ACCESS_DENIED):
		return "workspace directory cannot be reached (access denied); give your user read access to it and the folders above it"
	case errors.Is(err, windows.ERROR_FILE_NOT_FOUND), errors.Is(err, windows.ERROR_PATH_NOT_FOUND):
		return "workspace directory does not exist; check the path"
	case errors.Is(err, windows.ERROR_CANT_RESOLVE_FILENAME):
		return "workspace path has too many links; pass the folder itself"
	}
	return "workspace path cannot be inspected; check that it names a folder you can read"
}

// checkRoot is Check's test of the held handle and the path against the
// anchored identity want.
func checkRoot(fd int, path string, want Info) error {
	held, err := infoOfHandle(handle(fd), ".")
	if err != nil || held.Nlink == 0 {
		return reason.New(reason.WorkspaceUnavailable, "workspace directory was deleted")
	}
	now, err := statOpenPath(path)
	if err != nil {
		return reason.New(reason.WorkspaceUnavailable, "workspace directory is gone")
	}
	if !now.IsDir() || !sameID(now, want) {
		return reason.New(reason.WorkspaceUnavailable, "workspace directory was replaced")
	}
	return nil
}

// reopenDir is a fresh handle of the folder fd itself (an empty name
// relative to it).
func reopenDir(fd int) (int, error) {
	h, err := ntOpen(handle(fd), "", dirAccess, windows.FILE_OPEN, windows.FILE_DIRECTORY_FILE, 0)
	if err != nil {
		return -1, err
	}
	return int(h), nil
}

// openDirAt opens the folder name beneath dfd; ErrLink when it is a
// reparse point or not a folder.
func openDirAt(dfd int, name string) (int, error) {
	h, err := openNamed(dfd, name, dirAccess, windows.FILE_DIRECTORY_FILE)
	if err != nil {
		return -1, err
	}
	info, err := infoOfHandle(h, name)
	if err != nil || !info.IsDir() {
		windows.CloseHandle(h)
		if err != nil {
			return -1, err
		}
		return -1, ErrLink
	}
	return int(h), nil
}

// openFileAt opens name beneath dfd for reading; the caller's fstat
// refuses what is not a regular file (a reparse point reads as a link).
func openFileAt(dfd int, name string) (int, error) {
	h, err := openNamed(dfd, name, windows.FILE_GENERIC_READ, windows.FILE_SEQUENTIAL_ONLY)
	if err != nil {
		return -1, err
	}
	return int(h), nil
}

func readFD(fd int, p []byte) (int, error) {
	var n uint32
	err := windows.ReadFile(handle(fd), p, &n, nil)
	if err == windows.ERROR_HANDLE_EOF {
		return 0, nil
	}
	return int(n), err
}

// listNames lists the folder fd from its start (FileFullDirectoryRestartInfo
// rewinds a handle listed before), buf being the reusable entry buffer.
func listNames(fd int, buf *[]byte) ([]string, error) {
	if *buf == nil {
		*buf = make([]byte, 64<<10)
	}
	b := *buf
	var names []string
	class := uint32(windows.FileFullDirectoryRestartInfo)
	for {
		err := windows.GetFileInformationByHandleEx(handle(fd), class, &b[0], uint32(len(b)))
		if err == windows.ERROR_NO_MORE_FILES {
			return names, nil
		}
		if err != nil {
			return nil, err
		}
		class = windows.FileFullDirectoryInfo
		// FILE_FULL_DIR_INFO: NextEntryOffset at 0, FileNameLength at
		// 60, FileName at 68.
		for off := 0; off+68 <= len(b); {
			next := *(*uint32)(unsafe.Pointer(&b[off]))
			n := int(*(*uint32)(unsafe.Pointer(&b[off+60]))) / 2
			if off+68+2*n > len(b) {
				return nil, windows.ERROR_INVALID_DATA
			}
			name := string(utf16.Decode(unsafe.Slice((*uint16)(unsafe.Pointer(&b[off+68])), n)))
			if name != "." && name != ".." {
				names = append(names, name)
			}
			if next == 0 {
				break
			}
			off += int(next)
		}
	}
}

// StatAt describes the entry name of an open directory handle without
// following a link; a missing entry returns Info{Exists:false} and no error.
func StatAt(dirfd int, name string) (Info, error) {
	if name == "." {
		// The folder itself, as fstatat(dirfd, ".") gives it on Linux.
		h, err := ntOpen(handle(dirfd), "", windows.FILE_READ_ATTRIBUTES|windows.SYNCHRONIZE, windows.FILE_OPEN, 0, 0)
		if err != nil {
			return Info{}, err
		}
		defer windows.CloseHandle(h)
		return infoOfHandle(h, name)
	}
	h, err := openNamed(dirfd, name, windows.FILE_READ_ATTRIBUTES|windows.SYNCHRONIZE, 0)
	if err != nil {
		if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND) {
			return Info{Name: name}, nil
		}
		return Info{}, err
	}
	defer windows.CloseHandle(h)
	return infoOfHandle(h, name)
}

// StatFD describes an open file or directory.
func StatFD(fd int, name string) (Info, error) { return infoOfHandle(handle(fd), name) }

// StatPath describes an absolute path outside any workspace without
// following a final link. A missing path returns Info{Exists:false}.
func StatPath(abs string) Info {
	info, err := statOpenPath(abs)
	if err != nil {
		return Info{Name: filepath.Base(abs)}
	}
	return info
}

// OpenAt is NtCreateFile of name beneath the folder handle dfd with no
// reparse point followed, for package write: disposition FILE_OPEN also
// requires the object opened to hold exactly that name; FILE_CREATE makes a
// new entry or fails with an error satisfying errors.Is(err, fs.ErrExist).
func OpenAt(dfd int, name string, access, disposition, options uint32) (int, error) {
	if disposition == windows.FILE_OPEN {
		h, err := openNamed(dfd, name, access, options)
		if err != nil {
			return -1, err
		}
		return int(h), nil
	}
	if !plainName(name) {
		return -1, errAbsent
	}
	h, err := ntOpen(handle(dfd), name, access, disposition, options, 0)
	if err != nil {
		return -1, err
	}
	return int(h), nil
}
