// Package workspace owns the bound workspace root: its canonical path, the
// held directory handle and the identity anchor that tells a replaced root
// from ordinary writes inside it, and every read of workspace bytes. Names
// are resolved one component at a time beneath the held handle with
// O_NOFOLLOW (on Windows, NtCreateFile relative to the folder's handle with
// FILE_OPEN_REPARSE_POINT: sys_windows.go), so no link is ever followed;
// files are opened non-blocking and must be regular with a single link. This package never writes; package
// write (beside it) writes through the directory handles it hands out.
package workspace

import (
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/vivary-dev/vivary-go/reason"
)

// Workspace is a bound root. It is safe for concurrent use; Close is idempotent.
type Workspace struct {
	path string
	mu   sync.Mutex
	fd   int
	dev  uint64
	ino  uint64
	// idHigh is the upper half of a 128-bit file id (Windows' FILE_ID_INFO
	// on ReFS); zero where the system's ids are 64-bit.
	idHigh uint64
}

// Bind normalizes root (absolute, links resolved, clean), requires a real
// directory, opens it and anchors its identity. Errors carry no path. A
// path that is itself a symbolic link is refused (links above it resolve):
// the shell commands bind exactly the folder named. The MCP adapter's Bind
// (package adapter) resolves the operator's links before calling this one.
func Bind(root string) (*Workspace, error) {
	if strings.TrimSpace(root) == "" {
		return nil, reason.New(reason.WorkspaceUnavailable, "workspace path is empty")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, reason.Wrap(reason.WorkspaceUnavailable, "workspace path cannot be made absolute", err)
	}
	fd, real, id, err := bindRoot(abs)
	if err != nil {
		return nil, err
	}
	return &Workspace{path: real, fd: fd, dev: id.Dev, ino: id.Ino, idHigh: id.IDHigh}, nil
}

// Root is the canonical absolute root path. Never put it in output.
func (w *Workspace) Root() string { return w.path }

// Identity is the anchored (device, inode) pair: on Windows the volume
// serial number and the 128-bit file id folded to 64 bits (Check compares
// all 128).
func (w *Workspace) Identity() (dev, ino uint64) { return w.dev, w.ino }

// Close releases the anchor. After Close, Check always fails.
func (w *Workspace) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return nil
	}
	err := closeFD(w.fd)
	w.fd = -1
	return err
}

// Check reports workspace_unavailable when the root path no longer names the
// anchored directory: deleted, renamed away and replaced, or swapped for a link.
func (w *Workspace) Check() error {
	w.mu.Lock()
	fd := w.fd
	w.mu.Unlock()
	if fd < 0 {
		return reason.New(reason.WorkspaceUnavailable, "workspace is closed")
	}
	return checkRoot(fd, w.path, Info{Dev: w.dev, Ino: w.ino, IDHigh: w.idHigh})
}

// Info is what one lstat beneath the root says of an entry.
type Info struct {
	Name   string
	Mode   uint32 // S_IFMT bits
	Size   int64
	Dev    uint64
	Ino    uint64
	Nlink  uint64
	IDHigh uint64 // the upper half of a 128-bit file id, else 0
	Mtime  int64  // ns
	Ctime  int64  // ns
	Exists bool
}

// IsDir, IsRegular and IsLink classify the entry.
func (i Info) IsDir() bool     { return i.Mode == modeDir }
func (i Info) IsRegular() bool { return i.Mode == modeRegular }
func (i Info) IsLink() bool    { return i.Mode == modeLink }

// The S_IFMT values Info.Mode holds, the same on every system (Windows
// reports its entries in these terms: a reparse point of any kind is a link).
const (
	modeDir     = 0o040000
	modeRegular = 0o100000
	modeLink    = 0o120000
)

// ErrLink is returned when a path component is a link or not a directory.
var ErrLink = errors.New("path component is a link or not a directory")

// openDir opens the directory rel ("" is the root) beneath the root, one
// component at a time, refusing links. The caller closes the fd.
func (w *Workspace) openDir(rel string) (int, error) {
	w.mu.Lock()
	root := w.fd
	w.mu.Unlock()
	if root < 0 {
		return -1, reason.New(reason.WorkspaceUnavailable, "workspace is closed")
	}
	fd, err := reopenDir(root)
	if err != nil {
		return -1, err
	}
	if rel == "" {
		return fd, nil
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			closeFD(fd)
			return -1, ErrLink
		}
		next, err := openDirAt(fd, seg)
		closeFD(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// OpenDirAt opens the folder name beneath the folder handle dfd with no
// link followed: ErrLink when it is a link or not a folder.
func OpenDirAt(dfd int, name string) (int, error) { return openDirAt(dfd, name) }

// OpenDir returns a fresh handle of the directory rel ("" is the root),
// reached one component at a time from the held root with no link followed
// (ErrLink if a component is a link or not a directory). The caller closes
// it. It is how package write reaches the folders it writes into.
func (w *Workspace) OpenDir(rel string) (int, error) { return w.openDir(rel) }

// ReadAt is ReadFile for the entry name of an open directory handle.
func ReadAt(dirfd int, name string, max int64, want *Info) ([]byte, Info, error) {
	return readAt(dirfd, name, max, want)
}

func split(rel string) (dir, name string) {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i], rel[i+1:]
	}
	return "", rel
}

// Lstat describes rel without following a link at any component. A missing
// entry returns Info{Exists:false} and no error.
func (w *Workspace) Lstat(rel string) (Info, error) {
	dir, name := split(rel)
	fd, err := w.openDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Info{Name: name}, nil
		}
		return Info{}, err
	}
	defer closeFD(fd)
	return StatAt(fd, name)
}

// ReadDir lists the directory rel with an lstat of every entry, in no order.
func (w *Workspace) ReadDir(rel string) ([]Info, error) { return w.ListDir(rel, nil) }

// ListDir is ReadDir that first hands opened the held handle of the very
// directory it is about to list (to set a change watch on it, say), so
// nothing that happens to it after opened returns can go unseen.
func (w *Workspace) ListDir(rel string, opened func(fd int)) ([]Info, error) {
	fd, err := w.openDir(rel)
	if err != nil {
		return nil, err
	}
	defer closeFD(fd)
	if opened != nil {
		opened(fd)
	}
	var buf []byte
	names, err := listNames(fd, &buf)
	if err != nil {
		return nil, err
	}
	return statNames(fd, names), nil
}

// NamesAt lists the names in the open folder handle dfd, from its start.
func NamesAt(dfd int) ([]string, error) {
	var buf []byte
	return listNames(dfd, &buf)
}

// statNames lstats each of names beneath the folder handle fd; an entry
// that cannot be stat'd (gone since the listing) has Exists false.
func statNames(fd int, names []string) []Info {
	out := make([]Info, 0, len(names))
	for _, n := range names {
		info, err := StatAt(fd, n)
		if err != nil {
			info = Info{Name: n}
		}
		out = append(out, info)
	}
	return out
}

// Errors ReadFile returns, so callers can map them to omissions.
var (
	ErrNotRegular = errors.New("not a regular single-link file")
	ErrTooLarge   = errors.New("file over its size cap")
	ErrChanged    = errors.New("file changed while it was read")
)

// ReadFile reads rel with no link followed, non-blocking, requiring a regular
// file with one link, at most max bytes (ErrTooLarge past that). If want is
// non-nil, the file's identity must equal it before and after the read
// (ErrChanged otherwise).
func (w *Workspace) ReadFile(rel string, max int64, want *Info) ([]byte, Info, error) {
	dir, name := split(rel)
	dfd, err := w.openDir(dir)
	if err != nil {
		return nil, Info{}, err
	}
	defer closeFD(dfd)
	return readAt(dfd, name, max, want)
}

// Reader is the file-level batch reader: it reads and lists many entries
// for one snapshot, opening each folder once, beneath the handle of its
// parent, one component at a time with no link followed, as openDir does
// from the root. Close it after use. (produce.Reader is the producer-level
// one: it serves query, find and check, and the capsule its snapshot,
// from snapshots this type reads.) A Reader is used by one goroutine at a time.
type Reader struct {
	w   *Workspace
	fds map[string]int
	buf []byte // for directory entries
	// Opened, when set, is handed each file's open handle once it is known
	// to be a regular single-link file and before a byte is read.
	Opened func(fd int, rel string)
	// Alloc, when set, gives the buffer each read lands in (n bytes, the
	// file's size plus one); nil means a fresh heap slice.
	Alloc func(n int) []byte
}

// maxHeldDirs bounds the folder handles one Reader keeps open: past it the
// handles are closed and reopened as needed, so a tree of many folders
// cannot run the process out of descriptors. A variable only so tests can
// pass it without making a thousand folders.
var maxHeldDirs = 1024

// NewReader returns a batch reader over w.
func (w *Workspace) NewReader() *Reader { return &Reader{w: w, fds: map[string]int{}} }

// dir is the held handle of the folder rel ("" is the root), opened beneath
// its parent's held handle when it is not held yet.
func (r *Reader) dir(rel string) (int, error) {
	if fd, ok := r.fds[rel]; ok {
		return fd, nil
	}
	if len(r.fds) >= maxHeldDirs {
		r.Close()
	}
	var fd int
	if rel == "" {
		var err error
		if fd, err = r.w.openDir(""); err != nil {
			return -1, err
		}
	} else {
		parent, name := split(rel)
		if name == "" || name == "." || name == ".." || rel[0] == '/' {
			return -1, ErrLink
		}
		pfd, err := r.dir(parent)
		if err != nil {
			return -1, err
		}
		fd, err = openDirAt(pfd, name)
		if err != nil {
			return -1, err
		}
	}
	r.fds[rel] = fd
	return fd, nil
}

// Lstat is Workspace.Lstat with the folder handles reused.
func (r *Reader) Lstat(rel string) (Info, error) {
	dir, name := split(rel)
	fd, err := r.dir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Info{Name: name}, nil
		}
		return Info{}, err
	}
	return StatAt(fd, name)
}

// ReadFile is Workspace.ReadFile with the folder handles reused.
func (r *Reader) ReadFile(rel string, max int64, want *Info) ([]byte, Info, error) {
	dir, name := split(rel)
	dfd, err := r.dir(dir)
	if err != nil {
		return nil, Info{}, err
	}
	var opened func(int)
	if r.Opened != nil {
		opened = func(fd int) { r.Opened(fd, rel) }
	}
	return readAtThen(dfd, name, max, want, opened, r.Alloc)
}

// ListDir is Workspace.ListDir with the folder handles reused: the folder
// is reached beneath its parent's held handle and stays held for its own
// folders.
func (r *Reader) ListDir(rel string, opened func(fd int)) ([]Info, error) {
	fd, err := r.dir(rel)
	if err != nil {
		return nil, err
	}
	if opened != nil {
		opened(fd)
	}
	names, err := listNames(fd, &r.buf)
	if err != nil {
		return nil, err
	}
	return statNames(fd, names), nil
}

// Close releases the folder handles.
func (r *Reader) Close() {
	for _, fd := range r.fds {
		closeFD(fd)
	}
	clear(r.fds)
}

func readAt(dfd int, name string, max int64, want *Info) ([]byte, Info, error) {
	return readAtThen(dfd, name, max, want, nil, nil)
}

func readAtThen(dfd int, name string, max int64, want *Info, opened func(fd int), alloc func(int) []byte) ([]byte, Info, error) {
	fd, err := openFileAt(dfd, name)
	if err != nil {
		return nil, Info{}, err
	}
	defer closeFD(fd)
	if want != nil && opened == nil && want.IsRegular() && want.Nlink == 1 && want.Size <= max {
		return readKnown(fd, name, *want, alloc)
	}
	before, err := StatFD(fd, name)
	if err != nil {
		return nil, Info{}, err
	}
	if !before.IsRegular() || before.Nlink != 1 {
		return nil, before, ErrNotRegular
	}
	if want != nil && !sameFile(before, *want) {
		return nil, before, ErrChanged
	}
	if before.Size > max {
		return nil, before, ErrTooLarge
	}
	if opened != nil {
		opened(fd)
	}
	data := buffer(alloc, before.Size+1)
	n, err := readUpTo(fd, data, before.Size)
	if err != nil {
		return nil, before, err
	}
	data = data[:n]
	if int64(n) > max {
		return nil, before, ErrTooLarge
	}
	after, err := StatFD(fd, name)
	if err != nil {
		return nil, before, err
	}
	if !sameFile(before, after) || int64(n) != after.Size {
		return nil, after, ErrChanged
	}
	return data, after, nil
}

// readKnown reads fd, just opened by the name the caller's stat described
// as want (a regular single-link file within the cap), with one fstat,
// after the read, where the general path takes one before it too. That
// fstat is the proof: the handle's identity (device and inode; on Windows
// the volume serial and the 128-bit file id) names the object read, so if
// it, its type, link count, size, mtime and ctime equal want, the bytes
// came from the very file the stat judged, and nothing changed it between
// that stat (taken before the open) and this one (taken after the read),
// the whole span the general path's two fstats cover. Anything else is
// refused as the general path refuses it, and no byte of it is returned:
// not regular (a FIFO swapped in is read non-blocking, so it cannot hang,
// and what it held is dropped), changed, or the read's error. One
// difference: a file that grows while it is read, past the cap or not, is
// changed here; the general path, which knew the size before the read,
// called a growth past the cap during the read too large (both mean the
// walk's file is not there as it was). A caller that needs the handle
// before the read (Opened: a change watch set on it) takes the general
// path, which proves the identity before it hands the handle out.
func readKnown(fd int, name string, want Info, alloc func(int) []byte) ([]byte, Info, error) {
	data := buffer(alloc, want.Size+1)
	n, rerr := readUpTo(fd, data, want.Size)
	after, err := StatFD(fd, name)
	if err != nil {
		return nil, Info{}, err
	}
	switch {
	case !after.IsRegular() || after.Nlink != 1:
		return nil, after, ErrNotRegular
	case !sameFile(after, want):
		return nil, after, ErrChanged
	case rerr != nil:
		return nil, after, rerr
	case int64(n) != after.Size:
		return nil, after, ErrChanged
	}
	return data[:n], after, nil
}

// buffer is alloc(n), or a fresh slice when alloc is nil.
func buffer(alloc func(int) []byte, n int64) []byte {
	if alloc != nil {
		return alloc(int(n))
	}
	return make([]byte, n)
}

// readUpTo reads fd into data (size+1 bytes: one more tells a file that
// grew) and returns how many bytes it read.
func readUpTo(fd int, data []byte, size int64) (int, error) {
	n := 0
	for n < len(data) {
		m, err := readFD(fd, data[n:])
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
		if int64(n) == size {
			// A read that stops exactly at the expected size reached the
			// end; growth after it shows in the fstat that follows. This
			// saves a second read per file.
			break
		}
	}
	return n, nil
}

func sameFile(a, b Info) bool {
	return a.Dev == b.Dev && a.Ino == b.Ino && a.IDHigh == b.IDHigh && a.Size == b.Size && a.Mtime == b.Mtime && a.Ctime == b.Ctime && a.Mode == b.Mode && a.Nlink == b.Nlink
}

// StatMany lstats every rel (no link followed at any component), opening
// each directory once through its parent's handle, on every core for a long
// list. A missing or unreachable entry gets Info{Exists:false}. It is the
// cheap revalidation of a snapshot.
func (w *Workspace) StatMany(rels []string) ([]Info, error) {
	const chunk = 1024
	if len(rels) <= chunk || runtime.GOMAXPROCS(0) == 1 {
		return w.statMany(rels)
	}
	out := make([]Info, len(rels))
	errs := make(chan error, (len(rels)+chunk-1)/chunk)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for lo := 0; lo < len(rels); lo += chunk {
		hi := min(lo+chunk, len(rels))
		wg.Add(1)
		sem <- struct{}{}
		go func(lo, hi int) {
			defer wg.Done()
			defer func() { <-sem }()
			infos, err := w.statMany(rels[lo:hi])
			if err != nil {
				errs <- err
				return
			}
			copy(out[lo:hi], infos)
		}(lo, hi)
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return out, nil
}

func (w *Workspace) statMany(rels []string) ([]Info, error) {
	w.mu.Lock()
	root := w.fd
	w.mu.Unlock()
	if root < 0 {
		return nil, reason.New(reason.WorkspaceUnavailable, "workspace is closed")
	}
	fds := map[string]int{"": root}
	defer func() {
		for d, fd := range fds {
			if d != "" && fd >= 0 {
				closeFD(fd)
			}
		}
	}()
	var dirFD func(dir string) int
	dirFD = func(dir string) int {
		if fd, ok := fds[dir]; ok {
			return fd
		}
		parent, name := split(dir)
		pfd := dirFD(parent)
		fd := -1
		if pfd >= 0 {
			if f, err := openDirAt(pfd, name); err == nil {
				fd = f
			}
		}
		fds[dir] = fd
		return fd
	}
	out := make([]Info, len(rels))
	for i, rel := range rels {
		dir, name := split(rel)
		fd := dirFD(dir)
		if fd < 0 {
			out[i] = Info{Name: name}
			continue
		}
		info, err := StatAt(fd, name)
		if err != nil {
			info = Info{Name: name}
		}
		out[i] = info
	}
	return out, nil
}

// Same reports whether two infos describe the same unchanged entry.
func Same(a, b Info) bool { return a.Exists == b.Exists && (!a.Exists || sameFile(a, b)) }
