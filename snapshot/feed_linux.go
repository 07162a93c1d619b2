package snapshot

import (
	"path/filepath"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vivary-dev/vivary-go/workspace"
)

// inotify is the kernel change feed on Linux: a watch on every walked
// folder and every read document, each set on the very handle the walk
// listed or the read opened (through /proc/self/fd), so no rename can put
// another inode under a watched name. The kernel queues an event before the
// system call that changed the file returns, so draining the queue at the
// start of a call sees every change that completed before the call began.
type inotify struct {
	fd     int
	mu     sync.Mutex
	paths  map[int32]string // watch descriptor -> workspace-relative path
	broken bool             // a watch failed: the feed cannot vouch for the tree
}

const (
	dirMask  = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR
	fileMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
)

// remote are the filesystems whose changes may be made by another machine,
// which no local kernel sees: network, FUSE and cluster filesystems.
var remote = map[int64]bool{
	0x6969:     true, // NFS
	0x517B:     true, // SMB
	0xFE534D42: true, // SMB2
	0xFF534D42: true, // CIFS
	0x65735546: true, // FUSE
	0x01021997: true, // 9p (v9fs)
	0x00C36400: true, // Ceph
	0x5346414F: true, // AFS
	0x6B414653: true, // kAFS
	0x73757245: true, // Coda
	0x564C:     true, // NCP
	0x01161970: true, // GFS2
	0x7461636F: true, // OCFS2
	0x47504653: true, // GPFS
	0x013111A8: true, // IBRIX
	0x0BD00BD0: true, // Lustre
	0x19830326: true, // fhgfs/BeeGFS
	0x6E667364: true, // nfsd
}

// Test seams, nil outside tests. fsType stands in for the filesystem type
// statfs reports for the root ("") or a walked folder; watchFault runs just
// before each inotify_add_watch for rel, and an error it returns stands for
// the kernel's (ENOSPC: the user's watch limit).
var (
	fsType     func(rel string, kernel int64) int64
	watchFault func(rel string) error
)

// remoteFolder reports whether a folder's statfs, or its failure, rules out
// trusting the feed for it.
func remoteFolder(rel string, err error, st *unix.Statfs_t) bool {
	if err != nil {
		return true
	}
	t := int64(st.Type)
	if fsType != nil {
		t = fsType(rel, t)
	}
	return remote[t]
}

// newFeed starts a change feed for the tree at root, or returns nil when
// the kernel cannot give one (no inotify, out of instances) or the tree
// lives on a filesystem whose changes it may not see.
func newFeed(root string) feed {
	var st unix.Statfs_t
	if remoteFolder("", unix.Statfs(root, &st), &st) {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &inotify{fd: fd, paths: map[int32]string{}}
}

func (n *inotify) watch(fd int, rel string, mask uint32, dir bool) {
	if dir {
		// A folder mounted from elsewhere is judged like the root.
		var st unix.Statfs_t
		if remoteFolder(rel, unix.Fstatfs(fd, &st), &st) {
			n.mu.Lock()
			n.broken = true
			n.mu.Unlock()
			return
		}
	}
	wd, err := addWatch(n.fd, rel, "/proc/self/fd/"+strconv.Itoa(fd), mask)
	n.mu.Lock()
	defer n.mu.Unlock()
	if err != nil {
		n.broken = true // out of watches (ENOSPC), no /proc, ...
		return
	}
	n.paths[int32(wd)] = rel
}

func addWatch(fd int, rel, path string, mask uint32) (int, error) {
	if watchFault != nil {
		if err := watchFault(rel); err != nil {
			return -1, err
		}
	}
	return unix.InotifyAddWatch(fd, path, mask)
}

func (n *inotify) dirOpened(fd int, rel string)  { n.watch(fd, rel, dirMask, true) }
func (n *inotify) fileOpened(fd int, rel string) { n.watch(fd, rel, fileMask, false) }

func (n *inotify) pathWatch(ws *workspace.Workspace, rel string, info workspace.Info) {
	wd, err := addWatch(n.fd, rel, filepath.Join(ws.Root(), filepath.FromSlash(rel)), fileMask|unix.IN_DONT_FOLLOW)
	now, serr := ws.Lstat(rel)
	n.mu.Lock()
	defer n.mu.Unlock()
	if err != nil || serr != nil || !workspace.Same(info, now) {
		// Not watched, or not the file that was judged: cannot vouch.
		n.broken = true
		return
	}
	n.paths[int32(wd)] = rel
}

func (n *inotify) usable() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return !n.broken
}

// content are the events that change what a file holds or its attributes
// but leave every name where it was; every other event (create, delete,
// move, a watch gone) changes the tree's shape.
const content = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE

// drain reads every queued event without blocking and returns the paths
// they name, and whether any event changed the tree's shape (anything but
// content events on files). ok is false when the feed lost events (queue
// overflow), cannot name what changed, or failed: the caller must then
// trust nothing it kept.
func (n *inotify) drain() (changed map[string]bool, structural, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.broken {
		return nil, false, false
	}
	changed = map[string]bool{}
	var buf [64 << 10]byte
	for {
		m, err := unix.Read(n.fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			return changed, structural, true
		}
		if err != nil || m <= 0 {
			n.broken = true
			return nil, false, false
		}
		for off := 0; off+unix.SizeofInotifyEvent <= m; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			nameLen := int(ev.Len)
			name := ""
			if nameLen > 0 {
				raw := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+nameLen]
				for i, c := range raw {
					if c == 0 {
						raw = raw[:i]
						break
					}
				}
				name = string(raw)
			}
			off += unix.SizeofInotifyEvent + nameLen
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				n.broken = true
				return nil, false, false
			}
			rel, known := n.paths[ev.Wd]
			if !known {
				// A watch this feed no longer names (a folder since
				// pruned, a file since moved away): something changed
				// that cannot be placed.
				n.broken = true
				return nil, false, false
			}
			if ev.Mask&^content != 0 {
				// A folder's own event (IN_ISDIR) counts too: a folder
				// whose mode changed may hide what it held.
				structural = true
			}
			if ev.Mask&unix.IN_IGNORED != 0 {
				delete(n.paths, ev.Wd)
			}
			switch {
			case name != "" && rel == "":
				changed[name] = true
			case name != "":
				changed[rel+"/"+name] = true
			default:
				changed[rel] = true
			}
		}
	}
}

func (n *inotify) close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fd >= 0 {
		unix.Close(n.fd)
		n.fd = -1
	}
	n.broken = true
}
