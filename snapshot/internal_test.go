package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// A policy input that changes while the documents are read refuses the
// call: the stat after the reads sees it and a second admission decides.
func TestPolicyChangedDuringReads(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	userIgnore := filepath.Join(home, ".config", "git", "ignore")
	cases := []struct {
		name     string
		git      bool
		enclosed bool // the workspace lies inside a larger worktree
		change   func(root string)
	}{
		{"thin block edited", false, false, func(root string) {
			appendTo(t, filepath.Join(root, ".gitignore"), "extra/\n")
		}},
		{"nested .gitignore added", true, false, func(root string) {
			testws.Write(t, root, "notes/.gitignore", "quokka.md\n")
		}},
		{"info/exclude edited in place", true, false, func(root string) {
			appendTo(t, filepath.Join(root, ".git", "info", "exclude"), "notes/quokka.md\n")
		}},
		{"user excludes file created", true, false, func(string) {
			os.MkdirAll(filepath.Dir(userIgnore), 0o755)
			os.WriteFile(userIgnore, []byte("quokka.md\n"), 0o644)
		}},
		{"nested .gitignore with rules of its own added outside Git", false, false, func(root string) {
			testws.Write(t, root, "notes/.gitignore", "quokka.md\n")
		}},
		{"enclosing repository's info/exclude edited in place", false, true, func(root string) {
			appendTo(t, filepath.Join(filepath.Dir(root), ".git", "info", "exclude"), "quokka.md\n")
		}},
		{"a .gitignore created in the enclosing worktree root", false, true, func(root string) {
			testws.Write(t, filepath.Dir(root), ".gitignore", "*.md\n")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(userIgnore)
			root := testws.Thin(t, map[string]string{"notes/quokka.md": "# Quokka\n\nquokka\n"})
			if c.git {
				testws.Git(t, root, "init", "-q")
			}
			if c.enclosed {
				testws.Git(t, filepath.Dir(root), "init", "-q")
			}
			time.Sleep(80 * time.Millisecond) // past the racy window
			ws := testws.Bind(t, root)
			if _, err := Take(context.Background(), ws, Options{}); err != nil {
				t.Fatalf("unchanged tree: %v", err)
			}
			afterReads = func() { c.change(root) }
			defer func() { afterReads = nil }()
			_, err := Take(context.Background(), ws, Options{})
			var re *reason.Error
			if !errors.As(err, &re) || re.Code != reason.PrivacyPolicyUnavailable {
				t.Fatalf("got %v, want %s", err, reason.PrivacyPolicyUnavailable)
			}
		})
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// Stamps from a filesystem with coarse times prove nothing, so such a tree
// is never trusted unchanged; fine-grained old stamps and missing entries
// are. A whole-millisecond stamp is chance, not coarseness, only on a
// device whose files keep finer times with few exceptions; a whole second
// is coarse everywhere.
func TestRacyStamps(t *testing.T) {
	const regular = 0o100000 // S_IFREG, as workspace.Info holds it
	started := time.Now()
	// Old, with digits below the millisecond (never whole by chance).
	old := started.Add(-time.Hour).Truncate(time.Second).UnixNano() + 500_000_123
	whole := old - old%1e6 // whole milliseconds, not whole seconds
	second := old - old%1e9
	file := func(dev uint64, ctime int64) workspace.Info {
		return workspace.Info{Exists: true, Mode: regular, Dev: dev, Mtime: ctime, Ctime: ctime}
	}
	fines := func(dev uint64, n int) []workspace.Info {
		out := make([]workspace.Info, n)
		for i := range out {
			out[i] = file(dev, old+int64(i)*1e6) // each with old's digits below the millisecond
		}
		return out
	}
	folder := file(1, old)
	folder.Mode = 0o040000
	cases := []struct {
		name  string
		info  workspace.Info
		other []workspace.Info // more stamps of the same snapshot
		racy  bool
	}{
		{"old, nanosecond times", file(1, old), nil, false},
		{"missing", workspace.Info{}, nil, false},
		{"changed within the window", workspace.Info{Exists: true, Mode: regular, Mtime: old + 1, Ctime: started.Add(-10*time.Millisecond).UnixNano() + 7}, nil, true},
		{"whole-second times (FAT, ext3)", file(1, second), nil, true},
		{"restored whole-second mtime, kernel ctime", workspace.Info{Exists: true, Mode: regular, Mtime: second, Ctime: old}, nil, false},
		{"one whole millisecond in two files is too many for chance", file(1, whole), fines(1, 1), true},
		{"one whole millisecond among 2,000 fine", file(1, whole), fines(1, 2000), false},
		{"one whole millisecond among 200 fine", file(1, whole), fines(1, 200), false},
		{"two whole milliseconds among 200 fine", file(1, whole), append(fines(1, 200), file(1, whole-1e6)), true},
		{"three whole milliseconds among 2,000 fine", file(1, whole), append(fines(1, 2000), file(1, whole-1e6), file(1, whole-2e6)), false},
		{"four whole milliseconds among 2,000 fine", file(1, whole), append(fines(1, 2000), file(1, whole-1e6), file(1, whole-2e6), file(1, whole-3e6)), true},
		{"whole seconds on a device that shows fine stamps", file(1, second), fines(1, 2000), true},
		{"whole milliseconds on a device with only such stamps", file(2, whole), append(fines(1, 5), file(2, whole-1e6)), true},
		{"one fine stamp among whole milliseconds (a mixed mount)", file(1, whole), append(fines(1, 1), file(1, whole-1e6), file(1, whole-2e6)), true},
		{"a fine folder is no evidence", file(1, whole), []workspace.Info{folder}, true},
		{"a fine mtime is no evidence", file(2, whole), []workspace.Info{{Exists: true, Mode: regular, Dev: 2, Mtime: old, Ctime: whole - 1e6}}, true},
		{"a missing entry is no evidence", file(3, whole), []workspace.Info{{Mode: regular, Dev: 3, Ctime: old}}, true},
		{"fine, but within the window", file(1, started.UnixNano()-5e6+1), fines(1, 3), true},
	}
	for _, c := range cases {
		stamps := []stamp{{"a.md", c.info}}
		outside := []policy.Outside{{Path: "/x", Info: c.info}}
		for i, o := range c.other {
			stamps = append(stamps, stamp{fmt.Sprintf("o%d.md", i), o})
			outside = append(outside, policy.Outside{Path: fmt.Sprintf("/o%d", i), Info: o})
		}
		if got := racy(started, nil, nil, stamps); got != c.racy {
			t.Errorf("%s: racy = %v", c.name, got)
		}
		if got := racy(started, outside, nil); got != c.racy {
			t.Errorf("%s outside: racy = %v", c.name, got)
		}
		infos := [][]workspace.Info{{c.info}, c.other}
		if got := racy(started, nil, infos); got != c.racy {
			t.Errorf("%s documents: racy = %v", c.name, got)
		}
		// Evidence from one part of a snapshot counts for the others.
		if got := racy(started, nil, [][]workspace.Info{c.other}, []stamp{{"a.md", c.info}}); got != c.racy {
			t.Errorf("%s, evidence from the documents: racy = %v", c.name, got)
		}
	}
	// Evidence counts for its own device only.
	if !racy(started, []policy.Outside{{Path: "/x", Info: file(1, old)}}, nil, []stamp{{"a.md", file(2, whole)}}) {
		t.Error("a fine policy input on another device vouched for a whole-millisecond note")
	}
}

// The fingerprint hashes each document's cached entry in place of one
// encoding of the whole list: its value is still the digest of the
// snapshot's compact canonical JSON, for a fresh snapshot and for one
// that read a single edited document again.
func TestFingerprintIsTheWholeEncoding(t *testing.T) {
	root := testws.Thin(t, map[string]string{
		"notes/café ü.md": "# Café\n\nquokka\n", "notes/a b.md": "# A b\n\nwombat\n", "notes/日本.md": "# 日本\n",
	})
	ws := testws.Bind(t, root)
	want := func(s *Snapshot) string {
		cd, err := s.configDigest()
		if err != nil {
			t.Fatal(err)
		}
		docs := make([]map[string]string, len(s.Docs))
		for i, d := range s.Docs {
			docs[i] = map[string]string{"path": d.Path, "content": d.Digest}
		}
		om := make([]any, len(s.Omissions))
		for i, o := range s.Omissions {
			om[i] = map[string]any{"kind": o.Kind, "reason": o.Reason, "count": o.Count}
		}
		b, err := canon.Compact(map[string]any{
			"schema": "vivary.tropo-document-snapshot/v0", "config": cd, "documents": docs,
			"privacy": []string{s.Admission.Fingerprint}, "omissions": om, "complete": s.Complete,
		})
		if err != nil {
			t.Fatal(err)
		}
		return canon.Digest(b)
	}
	src := NewSource(ws, Options{Watch: true})
	defer src.Close()
	for step, edit := range []func(){func() {}, func() { testws.Write(t, root, "notes/a b.md", "# A b\n\nnumbat\n") }} {
		edit()
		s, err := src.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Docs) < 3 || s.Fingerprint != want(s) {
			t.Fatalf("step %d: fingerprint %s over %d documents, want %s", step, s.Fingerprint, len(s.Docs), want(s))
		}
	}
}

// A document of the last snapshot is kept unread only when its stamp
// proves it unchanged: a whole-millisecond stamp does where the device's
// other files keep finer times, a whole-second one never does, and one
// among too few files does not.
func TestKeepableJudgesWholeStampsByTheirDevice(t *testing.T) {
	for _, c := range []struct {
		name   string
		notes  int
		ctime  func(old int64) int64
		keeps  bool
		reason string
	}{
		{"fine", 5, func(old int64) int64 { return old - old%1e9 + 7e6 + 123 }, true, "a fine old stamp proves the note unchanged"},
		{"whole millisecond among fine", 5, func(old int64) int64 { return old - old%1e9 + 7e6 }, true, "a chance whole millisecond on a fine device is still proof"},
		{"whole second", 5, func(old int64) int64 { return old - old%1e9 }, false, "a whole second proves nothing anywhere"},
		{"whole millisecond alone", 1, func(old int64) int64 { return old - old%1e9 + 7e6 }, false, "with no other file, a whole millisecond may be the filesystem's grain"},
	} {
		t.Run(c.name, func(t *testing.T) {
			extra := map[string]string{}
			for i := range c.notes {
				extra[fmt.Sprintf("notes/n%d.md", i)] = fmt.Sprintf("# N%d\n\nbody\n", i)
			}
			root := testws.Thin(t, extra)
			time.Sleep(80 * time.Millisecond) // past the racy window
			src := NewSource(testws.Bind(t, root), Options{})
			defer src.Close()
			prev, err := src.Snapshot(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			k := -1
			for i, d := range prev.Docs {
				if d.Path == "notes/n0.md" {
					k = i
				}
			}
			if k < 0 {
				t.Fatal("notes/n0.md not in the snapshot")
			}
			// Only n0.md is a file of this device in the fixture for
			// "alone": the others are the scaffold's, so count them out.
			if c.notes == 1 {
				for i := range prev.Docs {
					if i != k {
						prev.infos[i/chunk][i%chunk].Dev++
					}
				}
				for i := range prev.stamps {
					prev.stamps[i].info.Dev++
				}
			}
			// The other files' stamps are fine, whatever chance made them.
			for i := range prev.Docs {
				if o := &prev.infos[i/chunk][i%chunk]; i != k && o.Ctime%1e6 == 0 {
					o.Ctime += 123
				}
			}
			info := &prev.infos[k/chunk][k%chunk]
			info.Ctime = c.ctime(info.Ctime)
			keep, err := keepable(&plan{configFiles: prev.configFiles}, prev, nil)
			if err != nil {
				t.Fatal(err)
			}
			if doc, _ := keep("notes/n0.md", *info); (doc != nil) != c.keeps {
				t.Errorf("kept = %v: %s", doc != nil, c.reason)
			}
		})
	}
}
