package snapshot

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vivary-dev/vivary-go/internal/testws"
)

// Whenever the kernel change feed cannot vouch for the tree, a call falls
// back to a stat of every input, and a change that completed before the
// call is still in its answer. Each fallback is forced before every change
// of the write-then-call rounds: the answer must agree with a fresh
// snapshot every time.
func TestFallbackWriteThenCall(t *testing.T) {
	var limitHit atomic.Bool
	cases := []struct {
		name  string
		setup func(t *testing.T, root string)
		// arm runs before each change: the feed must not vouch for the call after it.
		arm func(t *testing.T, src *Source, root string, round int)
	}{
		{"queue overflow", nil, func(t *testing.T, src *Source, root string, _ int) {
			if src.feed != nil && src.feed.usable() {
				overflow(t, src, root)
			}
		}},
		{"read error on the feed", nil, func(t *testing.T, src *Source, _ string, _ int) {
			if src.feed != nil && src.feed.usable() {
				breakFeed(t, src)
			}
		}},
		{"watch limit hit on every other snapshot", func(t *testing.T, _ string) {
			setWatchFault(t, func(rel string) error {
				if limitHit.Load() && strings.HasPrefix(rel, "notes") {
					return unix.ENOSPC
				}
				return nil
			})
		}, func(t *testing.T, _ *Source, _ string, round int) { limitHit.Store(round%2 == 0) }},
		{"root on NFS", func(t *testing.T, _ string) { setFSType(t, "", 0x6969) }, nil},
		{"FUSE mounted on a subfolder", func(t *testing.T, _ string) { setFSType(t, "notes/d1", 0x65735546) }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, ws, muts := mutableTree(t, false)
			if !feedAvailable(root) {
				t.Skip("no kernel change feed here")
			}
			if c.setup != nil {
				c.setup(t, root)
			}
			src := NewSource(ws, Options{Watch: true})
			defer src.Close()
			if _, err := src.Snapshot(bg); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewSource(11))
			n := rounds(t) / 5 // times five cases
			for i := 0; i < n; i++ {
				if c.arm != nil {
					c.arm(t, src, root, i)
				}
				m := muts[rng.Intn(len(muts))]
				m.do(t, root, rng)
				agrees(t, src, i, m.name)
			}
		})
	}
}

// A queue overflow loses events, the change among them: the call stats
// every input instead, and the Source starts a new feed that decides the
// calls after it.
func TestFallbackOnQueueOverflow(t *testing.T) {
	root, src := fallbackSource(t)
	first := fallbackStart(t, src)
	old := src.feed
	overflow(t, src, root)
	testws.Write(t, root, "notes/a.md", "# A\n\nplatypus\n") // its event is dropped
	byStat(t, first, src, "notes/a.md", "platypus")
	if src.feed == old || src.feed == nil || !src.feed.usable() {
		t.Fatal("the overflowed feed was not replaced by a working one")
	}
	recovered(t, src, root)
}

// A read error on the feed (here: its descriptor no longer an inotify one)
// leaves the call to the stat of every input.
func TestFallbackOnFeedReadError(t *testing.T) {
	root, src := fallbackSource(t)
	first := fallbackStart(t, src)
	old := src.feed
	breakFeed(t, src)
	testws.Write(t, root, "notes/a.md", "# A\n\nplatypus\n")
	byStat(t, first, src, "notes/a.md", "platypus")
	if src.feed == old || src.feed == nil || !src.feed.usable() {
		t.Fatal("the failed feed was not replaced by a working one")
	}
	recovered(t, src, root)
}

// A watch the kernel refuses (ENOSPC: the user's inotify watch limit) on
// a folder, a read document, a hard-linked document watched by path or the
// root leaves that part unwatched: every call stats every input while the
// limit holds, and a new feed takes over once it is lifted.
func TestFallbackOnWatchLimit(t *testing.T) {
	cases := []struct{ name, refused, change, word string }{
		{"a folder", "notes/bulk", "notes/bulk/new.md", "platypus"},
		{"a read document", "notes/bulk/03.md", "notes/bulk/03.md", "platypus"},
		{"a hard-linked document", "notes/hl.md", "notes/hl.md", "platypus"},
		{"the root", "", "notes/a.md", "platypus"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, src := fallbackSource(t)
			var hit atomic.Bool
			hit.Store(true)
			setWatchFault(t, func(rel string) error {
				if hit.Load() && rel == c.refused {
					return unix.ENOSPC
				}
				return nil
			})
			first := fallbackStart(t, src)
			if src.feed == nil || src.feed.usable() {
				t.Fatal("a refused watch left the feed vouching for the tree")
			}
			if c.change == "notes/hl.md" {
				// Dropping the other link makes it a document to read.
				os.Remove(filepath.Join(filepath.Dir(root), "outside", "hl.md"))
			}
			testws.Write(t, root, c.change, "# C\n\n"+c.word+"\n")
			byStat(t, first, src, c.change, c.word)
			// Still over the limit: the next change is found by stat too.
			prev := settled(t, src)
			testws.Write(t, root, "notes/a.md", "# A\n\nwallaby\n")
			byStat(t, prev, src, "notes/a.md", "wallaby")
			hit.Store(false)
			testws.Write(t, root, "notes/a.md", "# A\n\nbilby\n")
			call(t, src, "notes/a.md", "bilby")
			if src.feed == nil || !src.feed.usable() {
				t.Fatal("with the limit lifted, the Source did not start a working feed")
			}
			recovered(t, src, root)
		})
	}
}

// A tree on a filesystem whose changes another machine may make (NFS,
// SMB/CIFS, FUSE, 9p) gets no feed; a folder mounted from one inside the
// tree leaves the feed unable to vouch. Either way every call stats every
// input, and a change there is in the next answer. Unmounted, the folder
// is watched again.
func TestFallbackOnRemoteFilesystem(t *testing.T) {
	types := []struct {
		name  string
		magic int64
	}{
		{"NFS", 0x6969}, {"SMB", 0x517B}, {"SMB2", 0xFE534D42}, {"CIFS", 0xFF534D42},
		{"FUSE", 0x65735546}, {"9p", 0x01021997},
	}
	for _, ty := range types {
		t.Run(ty.name+" root", func(t *testing.T) {
			root, src := fallbackSource(t)
			setFSType(t, "", ty.magic)
			first := fallbackStart(t, src)
			if src.feed != nil {
				t.Fatal("a feed was started on a remote filesystem")
			}
			testws.Write(t, root, "notes/a.md", "# A\n\nplatypus\n")
			byStat(t, first, src, "notes/a.md", "platypus")
			prev := settled(t, src)
			testws.Write(t, root, "notes/bulk/07.md", "# B\n\nwallaby\n")
			byStat(t, prev, src, "notes/bulk/07.md", "wallaby")
			if src.feed != nil {
				t.Fatal("a feed was started on a remote filesystem")
			}
		})
		t.Run(ty.name+" subfolder", func(t *testing.T) {
			root, src := fallbackSource(t)
			var mounted atomic.Bool
			mounted.Store(true)
			fsType = func(rel string, kernel int64) int64 {
				if mounted.Load() && rel == "notes/mnt" {
					return ty.magic
				}
				return kernel
			}
			t.Cleanup(func() { fsType = nil })
			first := fallbackStart(t, src)
			if src.feed == nil || src.feed.usable() {
				t.Fatal("the feed vouched for a tree with a remote folder in it")
			}
			testws.Write(t, root, "notes/mnt/m.md", "# M\n\nplatypus\n")
			byStat(t, first, src, "notes/mnt/m.md", "platypus")
			mounted.Store(false)
			testws.Write(t, root, "notes/mnt/m.md", "# M\n\nbilby\n")
			call(t, src, "notes/mnt/m.md", "bilby")
			if src.feed == nil || !src.feed.usable() {
				t.Fatal("with the folder local again, the Source did not start a working feed")
			}
			recovered(t, src, root)
		})
	}
}

// A hard-linked document is watched by path, and the watch proves it is
// still the file that was judged: replaced in between, the feed cannot
// vouch, and the next call (after the change completed) reads it.
func TestFallbackOnPathWatchOfAnotherFile(t *testing.T) {
	root, src := fallbackSource(t)
	var once atomic.Bool
	setWatchFault(t, func(rel string) error {
		if rel == "notes/hl.md" && once.CompareAndSwap(false, true) {
			tmp := filepath.Join(root, "notes", "hl.tmp")
			if err := os.WriteFile(tmp, []byte("# H\n\nplatypus\n"), 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, filepath.Join(root, "notes", "hl.md"))
		}
		return nil
	})
	if _, err := src.Snapshot(bg); err != nil {
		t.Fatal(err)
	}
	if !once.Load() || src.feed == nil || src.feed.usable() {
		t.Fatal("the feed vouched for a file it watched in place of the judged one")
	}
	old := src.feed
	call(t, src, "notes/hl.md", "platypus")
	if src.feed == old || src.feed == nil || !src.feed.usable() {
		t.Fatal("the feed was not replaced by a working one")
	}
	recovered(t, src, root)
}

// fallbackSource is a Source over a workspace with enough notes that a stat
// of every input stands out from the feed's stat of the fixed policy
// inputs, and a hard-linked note (linked from outside) that is watched by
// path. It skips where the kernel offers no feed.
func fallbackSource(t *testing.T) (string, *Source) {
	t.Helper()
	extra := map[string]string{
		"notes/a.md":     "# A\n\nalpha\n",
		"notes/mnt/m.md": "# M\n\nmounted\n",
		"notes/hl.md":    "# H\n\nlinked\n",
	}
	for i := 0; i < 40; i++ {
		extra[fmt.Sprintf("notes/bulk/%02d.md", i)] = fmt.Sprintf("# B%d\n\nbulk\n", i)
	}
	root := testws.Thin(t, extra)
	if err := os.MkdirAll(filepath.Join(filepath.Dir(root), "outside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(root, "notes", "hl.md"), filepath.Join(filepath.Dir(root), "outside", "hl.md")); err != nil {
		t.Fatal(err)
	}
	if !feedAvailable(root) {
		t.Skip("no kernel change feed here")
	}
	src := NewSource(testws.Bind(t, root), Options{Watch: true})
	t.Cleanup(src.Close)
	time.Sleep(80 * time.Millisecond) // past the racy window, so the stat can decide
	return root, src
}

// fallbackStart takes the Source's first snapshot.
func fallbackStart(t *testing.T, src *Source) *Snapshot {
	t.Helper()
	s, err := src.Snapshot(bg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// settled waits out the racy window of the last change and returns the
// snapshot a call then serves: one whose stamps can prove the tree
// unchanged, so the next call can be decided by a stat.
func settled(t *testing.T, src *Source) *Snapshot {
	t.Helper()
	time.Sleep(80 * time.Millisecond)
	return fallbackStart(t, src)
}

// call makes one call through src after a change and fails the test unless
// it agrees with a fresh snapshot and the document at rel says word. It
// returns the snapshot and the most inputs one revalidation stat'd.
func call(t *testing.T, src *Source, rel, word string) (*Snapshot, int) {
	t.Helper()
	most := 0
	statCount = func(n int) { most = max(most, n) }
	got, err := src.Snapshot(bg)
	statCount = nil
	if err != nil {
		t.Fatal(err)
	}
	want, err := Take(bg, src.Workspace(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Fingerprint != want.Fingerprint {
		t.Fatalf("the kept source served a stale answer:\n got %v %+v\nwant %v %+v", paths(got), got.Omissions, paths(want), want.Omissions)
	}
	for _, d := range got.Docs {
		if d.Path == rel {
			if text, err := Text(src.Workspace(), d); err != nil || !strings.Contains(text, word) {
				t.Fatalf("%s does not say %q: a change made before the call is not in its answer", rel, word)
			}
			return got, most
		}
	}
	t.Fatalf("%s is not in the answer (%v)", rel, paths(got))
	return nil, 0
}

// byStat is call, and fails unless the call revalidated by a stat of every
// input of prev, the snapshot it kept.
func byStat(t *testing.T, prev *Snapshot, src *Source, rel, word string) {
	t.Helper()
	if _, most := call(t, src, rel, word); most < len(prev.Docs) {
		t.Fatalf("the call did not fall back to a stat of every input: at most %d stat'd, %d documents", most, len(prev.Docs))
	}
}

// recovered checks that the Source's feed decides the next call again: a
// change is in the answer without a stat of every input.
func recovered(t *testing.T, src *Source, root string) {
	t.Helper()
	feed := src.feed
	testws.Write(t, root, "notes/bulk/11.md", "# B\n\nechidna\n")
	s, most := call(t, src, "notes/bulk/11.md", "echidna")
	if src.feed != feed || !feed.usable() {
		t.Fatal("the recovered feed did not last a call")
	}
	if most >= len(s.Docs) {
		t.Fatalf("after recovery a call still stat'd %d inputs (%d documents)", most, len(s.Docs))
	}
}

// overflow queues more events on the feed than the kernel keeps
// (max_queued_events), without draining: a change of mode on two files in
// a watched folder by turns, so the kernel cannot merge an event into the
// one before it. Neither file is a document.
func overflow(t *testing.T, src *Source, root string) {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skipf("no inotify queue limit to reach: %v", err)
	}
	limit, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || limit > 1<<20 {
		t.Skipf("inotify queue limit %q too large to fill cheaply", b)
	}
	files := [2]string{filepath.Join(root, "notes", "flood-a"), filepath.Join(root, "notes", "flood-b")}
	for _, f := range files {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i <= limit; i++ {
		if err := unix.Chmod(files[i%2], 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// breakFeed puts a folder's descriptor in place of the feed's inotify one,
// so its next read fails (EISDIR) the way a failing inotify read would.
func breakFeed(t *testing.T, src *Source) {
	t.Helper()
	n := src.feed.(*inotify)
	dir, err := unix.Open(t.TempDir(), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dir)
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := unix.Dup3(dir, n.fd, unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
}

func setWatchFault(t *testing.T, f func(rel string) error) {
	watchFault = f
	t.Cleanup(func() { watchFault = nil })
}

// setFSType makes statfs report magic for the folder at rel ("" the root).
func setFSType(t *testing.T, rel string, magic int64) {
	fsType = func(r string, kernel int64) int64 {
		if r == rel {
			return magic
		}
		return kernel
	}
	t.Cleanup(func() { fsType = nil })
}
