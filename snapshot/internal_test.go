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
// are. A whole-millisecond stamp is coarse only where no other stamp on its
// device is finer: on a fine filesystem it is chance.
func TestRacyStamps(t *testing.T) {
	started := time.Now()
	old := started.Add(-time.Hour).UnixNano()
	whole := old - old%1e9 + 7e6 // whole milliseconds, not whole seconds
	fineStamp := workspace.Info{Exists: true, Dev: 1, Mtime: old + 123, Ctime: old + 456}
	cases := []struct {
		name  string
		info  workspace.Info
		other []workspace.Info // more stamps of the same snapshot
		racy  bool
	}{
		{"old, nanosecond times", fineStamp, nil, false},
		{"missing", workspace.Info{}, nil, false},
		{"changed within the window", workspace.Info{Exists: true, Mtime: old + 1, Ctime: started.Add(-10*time.Millisecond).UnixNano() + 7}, nil, true},
		{"whole-second times (FAT, ext3)", workspace.Info{Exists: true, Dev: 1, Mtime: old - old%1e9, Ctime: old - old%1e9}, nil, true},
		{"restored whole-second mtime, kernel ctime", workspace.Info{Exists: true, Mtime: old - old%1e9, Ctime: old + 456}, nil, false},
		{"whole milliseconds by chance on a fine device", workspace.Info{Exists: true, Dev: 1, Mtime: whole, Ctime: whole}, []workspace.Info{fineStamp}, false},
		{"whole milliseconds on a device with only such stamps", workspace.Info{Exists: true, Dev: 2, Mtime: whole, Ctime: whole}, []workspace.Info{fineStamp, {Exists: true, Dev: 2, Mtime: whole - 1e6, Ctime: whole - 1e6}}, true},
		{"a fine mtime is no evidence of a fine device", workspace.Info{Exists: true, Dev: 2, Mtime: whole, Ctime: whole}, []workspace.Info{{Exists: true, Dev: 2, Mtime: old + 3, Ctime: whole - 1e6}}, true},
		{"a missing entry is no evidence", workspace.Info{Exists: true, Dev: 0, Mtime: whole, Ctime: whole}, []workspace.Info{{Ctime: old + 1}}, true},
		{"whole seconds on a device that shows fine stamps", workspace.Info{Exists: true, Dev: 1, Mtime: old - old%1e9, Ctime: old - old%1e9}, []workspace.Info{fineStamp}, true},
		{"fine, but within the window", workspace.Info{Exists: true, Dev: 1, Mtime: started.UnixNano() - 5e6, Ctime: started.UnixNano() - 5e6 + 1}, []workspace.Info{fineStamp}, true},
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
