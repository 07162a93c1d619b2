package write

import (
	"errors"
	"fmt"
	"path/filepath"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/vivary-dev/vivary-go/workspace"
)

// On Windows every step acts through handles workspace.OpenAt opens
// relative to a held folder handle with no reparse point followed: a new
// file or folder is made with FILE_CREATE, a name removed by setting the
// delete disposition (POSIX semantics where the system has them) on a
// handle opened by that exact name, and a rename is
// NtSetInformationFile(FileRenameInformation) relative to the same
// folder handle, without ReplaceIfExists for a new file. NTFS journals its own
// metadata, so a folder is not flushed (Windows opens no folder for it).

func closeFD(fd int) { windows.CloseHandle(windows.Handle(uintptr(fd))) }

func mkdirAt(dfd int, name string) error {
	fd, err := workspace.OpenAt(dfd, name, windows.FILE_LIST_DIRECTORY|windows.SYNCHRONIZE, windows.FILE_CREATE, windows.FILE_DIRECTORY_FILE)
	if err != nil {
		return err
	}
	closeFD(fd)
	return nil
}

func syncDir(int) {}

// setDelete removes the entry name in dfd, a folder when dir is set, by the
// delete disposition of a handle opened by that exact name.
func setDelete(dfd int, name string, dir bool) error {
	opts := uint32(windows.FILE_NON_DIRECTORY_FILE)
	if dir {
		opts = windows.FILE_DIRECTORY_FILE
	}
	fd, err := workspace.OpenAt(dfd, name, windows.DELETE|windows.SYNCHRONIZE, windows.FILE_OPEN, opts)
	if err != nil {
		return err
	}
	defer closeFD(fd)
	h := windows.Handle(uintptr(fd))
	// POSIX semantics take the name away at once, even while another
	// handle is open (Windows 10 1607 on); else the classic disposition,
	// which removes it when the last handle closes.
	flags := uint32(windows.FILE_DISPOSITION_DELETE | windows.FILE_DISPOSITION_POSIX_SEMANTICS)
	var iosb windows.IO_STATUS_BLOCK
	if windows.NtSetInformationFile(h, &iosb, (*byte)(unsafe.Pointer(&flags)), 4, windows.FileDispositionInformationEx) == nil {
		return nil
	}
	del := byte(1) // FILE_DISPOSITION_INFO: one BOOLEAN, DeleteFile
	return windows.SetFileInformationByHandle(h, windows.FileDispositionInfo, &del, 1)
}

func removeDirAt(dfd int, name string) error { return setDelete(dfd, name, true) }

func notEmpty(err error) bool { return errors.Is(err, windows.ERROR_DIR_NOT_EMPTY) }

func unlinkAt(dfd int, name string) error { return setDelete(dfd, name, false) }

func createExcl(dfd int, name string, _ uint32) (int, error) {
	return workspace.OpenAt(dfd, name, windows.FILE_GENERIC_WRITE|windows.FILE_READ_ATTRIBUTES|windows.DELETE, windows.FILE_CREATE, windows.FILE_NON_DIRECTORY_FILE)
}

func writeFD(fd int, p []byte) (int, error) {
	var n uint32
	err := windows.WriteFile(windows.Handle(uintptr(fd)), p, &n, nil)
	return int(n), err
}

func syncFD(fd int) error { return windows.FlushFileBuffers(windows.Handle(uintptr(fd))) }

// renameAt2 renames from to to within dfd through FILE_RENAME_INFORMATION
// relative to the folder's own handle (NtSetInformationFile: the Win32
// SetFileInformationByHandle would resolve the name against the current
// folder); replace says whether an existing to may go.
func renameAt2(dfd int, from, to string, replace bool) error {
	fd, err := workspace.OpenAt(dfd, from, windows.DELETE|windows.SYNCHRONIZE, windows.FILE_OPEN, 0)
	if err != nil {
		return err
	}
	defer closeFD(fd)
	name := utf16.Encode([]rune(to))
	// FILE_RENAME_INFORMATION: ReplaceIfExists (a BOOLEAN padded to 8 bytes),
	// RootDirectory, FileNameLength, FileName.
	buf := make([]byte, 20+2*len(name)+2)
	if replace {
		buf[0] = 1
	}
	*(*uintptr)(unsafe.Pointer(&buf[8])) = uintptr(dfd)
	*(*uint32)(unsafe.Pointer(&buf[16])) = uint32(2 * len(name))
	copy(unsafe.Slice((*uint16)(unsafe.Pointer(&buf[20])), len(name)), name)
	var iosb windows.IO_STATUS_BLOCK
	err = windows.NtSetInformationFile(windows.Handle(uintptr(fd)), &iosb, &buf[0], uint32(len(buf)), windows.FileRenameInformation)
	if st, ok := err.(windows.NTStatus); ok {
		return st.Errno()
	}
	return err
}

func renameReplace(dfd int, from, to string) error { return renameAt2(dfd, from, to, true) }

// renameNoReplace fails with an error satisfying errors.Is(err,
// fs.ErrExist) if to exists.
func renameNoReplace(dfd int, from, to string) error { return renameAt2(dfd, from, to, false) }

// exchange has no atomic form on Windows: Replace checks the bytes just
// before a plain rename instead.
func exchange(int, string, string) error { return errNoExchange }

func permAt(int, string) uint32 { return 0o644 }

// lockRoot takes a named auto-reset event derived from the root's identity
// (no lock file; the object goes with the last handle, so a killed holder
// frees it).
func lockRoot(ws *workspace.Workspace) (int, error) {
	fd, err := ws.OpenDir("")
	if err != nil {
		return -1, err
	}
	info, err := workspace.StatFD(fd, ".")
	closeFD(fd)
	if err != nil {
		return -1, err
	}
	name, _ := windows.UTF16PtrFromString(fmt.Sprintf(`Local\vivary-write-%x-%x-%x`, info.Dev, info.Ino, info.IDHigh))
	h, err := windows.CreateEvent(nil, 0, 1, name)
	if h == 0 {
		return -1, err
	}
	ev, err := windows.WaitForSingleObject(h, 0)
	if ev != windows.WAIT_OBJECT_0 {
		windows.CloseHandle(h)
		if err == nil {
			return -1, ErrBusy
		}
		return -1, err
	}
	return int(h), nil
}

func unlock(lock int) {
	h := windows.Handle(uintptr(lock))
	windows.SetEvent(h)
	windows.CloseHandle(h)
}

func openBase(abs string) (int, error) {
	p, err := windows.UTF16PtrFromString(filepath.Clean(abs))
	if err != nil {
		return -1, err
	}
	h, err := windows.CreateFile(p, windows.FILE_LIST_DIRECTORY|windows.FILE_TRAVERSE|windows.FILE_READ_ATTRIBUTES|windows.SYNCHRONIZE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return -1, err
	}
	info, err := workspace.StatFD(int(h), ".")
	if err != nil || !info.IsDir() {
		windows.CloseHandle(h)
		if err != nil {
			return -1, err
		}
		return -1, errBaseNotDir
	}
	return int(h), nil
}
