//go:build unix

package workspace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// readAtRef is the read with a stat from the caller as it was before
// readKnown: fstat, compare with want, read, fstat again. The fast path
// must answer every swap as it does.
func readAtRef(dfd int, name string, max int64, want *Info) ([]byte, Info, error) {
	fd, err := openFileAt(dfd, name)
	if err != nil {
		return nil, Info{}, err
	}
	defer closeFD(fd)
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
	data := make([]byte, before.Size+1)
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

// Between the walk's stat and the read, the file is swapped for another
// object or changed in a way that moves its stamp. Each read with that
// stat must refuse exactly as the two-fstat read does (the same error, no
// byte), through every way of reading (with and without a reused buffer),
// and a FIFO swapped in must not block.
func TestReadWithStatRefusesWhatTheStatDidNotSee(t *testing.T) {
	const body = "hello world\n"
	outside := filepath.Join(t.TempDir(), "outside.md")
	if err := os.WriteFile(outside, []byte("OUTSIDE-SAME\n"[:len(body)]), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		swap func(t *testing.T, p string)
		max  int64
		want error
	}{
		{"unchanged", func(*testing.T, string) {}, 100, nil},
		{"renamed over by another file of the same size", func(t *testing.T, p string) {
			write(t, p+".new", "SECRET-SAME\n"[:len(body)])
			must(t, os.Rename(p+".new", p))
		}, 100, ErrChanged},
		{"grown", func(t *testing.T, p string) { appendTo(t, p, "more\n") }, 100, ErrChanged},
		{"grown past the cap", func(t *testing.T, p string) { appendTo(t, p, "more\n") }, int64(len(body)), ErrChanged},
		{"truncated", func(t *testing.T, p string) { must(t, os.Truncate(p, 3)) }, 100, ErrChanged},
		{"given a second link", func(t *testing.T, p string) { must(t, os.Link(p, p+".2")) }, 100, ErrNotRegular},
		{"swapped for a hard link to an outside file", func(t *testing.T, p string) {
			must(t, os.Remove(p))
			must(t, os.Link(outside, p))
		}, 100, ErrNotRegular},
		{"swapped for a FIFO", func(t *testing.T, p string) {
			must(t, os.Remove(p))
			must(t, syscall.Mkfifo(p, 0o644))
		}, 100, ErrNotRegular},
		{"swapped for a folder", func(t *testing.T, p string) {
			must(t, os.Remove(p))
			must(t, os.Mkdir(p, 0o755))
		}, 100, ErrNotRegular},
		{"swapped for a link", func(t *testing.T, p string) {
			must(t, os.Remove(p))
			must(t, os.Symlink(outside, p))
		}, 100, ErrLink},
		{"removed", func(t *testing.T, p string) { must(t, os.Remove(p)) }, 100, syscall.ENOENT},
		{"over the cap when stat'd", func(*testing.T, string) {}, 4, ErrTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "a.md")
			write(t, p, body)
			dfd, err := openPath(root)
			if err != nil {
				t.Fatal(err)
			}
			defer closeFD(dfd)
			want, err := StatAt(dfd, "a.md")
			if err != nil {
				t.Fatal(err)
			}
			c.swap(t, p)
			refData, refInfo, refErr := readAtRef(dfd, "a.md", c.max, &want)
			if !errors.Is(refErr, c.want) || (c.want == nil) != (refErr == nil) {
				t.Fatalf("the reference read gave %v, the case expects %v", refErr, c.want)
			}
			reused := make([]byte, 0, 4)
			for _, alloc := range []func(int) []byte{nil, func(n int) []byte {
				if cap(reused) < n {
					reused = make([]byte, n)
				}
				return reused[:n]
			}} {
				done := make(chan struct{})
				var data []byte
				var info Info
				go func() {
					defer close(done)
					data, info, err = readAtThen(dfd, "a.md", c.max, &want, nil, alloc)
				}()
				select {
				case <-done:
				case <-time.After(30 * time.Second): // only a read that waits for a writer gets here
					t.Fatal("the read blocked")
				}
				if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
					t.Fatalf("read gave %v, want %v", err, c.want)
				}
				if !bytes.Equal(data, refData) {
					t.Fatalf("read returned %q, the reference %q", data, refData)
				}
				if err == nil && (string(data) != body || info != refInfo || !sameFile(info, want)) {
					t.Fatalf("read %q under %+v; reference %+v, stat %+v", data, info, refInfo, want)
				}
			}
		})
	}
}

// openPath opens a test folder as the workspace's folder handles are.
func openPath(dir string) (int, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	return fd, err
}

func write(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.WriteFile(p, []byte(s), 0o644))
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(s)
	must(t, err)
	must(t, f.Close())
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
