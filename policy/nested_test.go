package policy_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
)

// enclosed is a thin workspace at outer/<sub> inside the Git worktree outer.
func enclosed(t *testing.T, sub string) (outer, root string) {
	t.Helper()
	outer = gitRepo(t)
	root = filepath.Join(outer, filepath.FromSlash(sub))
	testws.Write(t, root, ".gitignore", policy.GitignoreBlock)
	return outer, root
}

func admitted(t *testing.T, root string, paths []string, opt policy.Options) *policy.Admission {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(root, p)); err != nil {
			testws.Write(t, root, p, "x\n")
		}
	}
	a, err := policy.Admit(context.Background(), bind(t, root), paths, opt)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A workspace inside a larger worktree serves nothing the enclosing
// repository ignores: its .gitignore files from the worktree root down,
// its info/exclude and the user's excludes file all apply, as do the
// workspace's own nested .gitignore files (Git reads them there).
func TestEnclosingRepositoryRulesApply(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // os.UserHomeDir on Windows
	t.Setenv("XDG_CONFIG_HOME", "")
	testws.Write(t, home, ".config/git/ignore", "*.private-note.md\n")
	outer, root := enclosed(t, "mid/ws")
	testws.Write(t, outer, ".gitignore", "*.diary.md\nmid/ws/parent-ignored.md\n")
	testws.Write(t, outer, "mid/.gitignore", "drafts/\n")
	testws.Write(t, outer, ".git/info/exclude", "mid/ws/excluded.md\n")
	testws.Write(t, root, "notes/.gitignore", "own-rule.md\n")
	paths := []string{"x.md", "a.diary.md", "notes/b.diary.md", "parent-ignored.md", "drafts/d.md", "notes/drafts/e.md",
		"excluded.md", "n.private-note.md", "notes/own-rule.md", "notes/kept.md", ".vivary/runtime/r.md", "t.vivary-tmp/y.md"}
	a := admitted(t, root, paths, policy.Options{IgnoreFiles: []string{".gitignore", "notes/.gitignore"}})
	if a.Mode != policy.ModeNested {
		t.Fatalf("mode %s", a.Mode)
	}
	if got := strings.Join(a.Allowed, ","); got != "notes/kept.md,x.md" {
		t.Fatalf("allowed %s", got)
	}
	// Every file outside the workspace Git read to decide is stamped.
	var outside []string
	for _, o := range a.Outside {
		if strings.HasPrefix(o.Path, outer) {
			outside = append(outside, filepath.ToSlash(strings.TrimPrefix(o.Path, outer)))
		}
	}
	want := "/.git /.git/config /.git/HEAD /.git/info /.git/info/exclude  /.gitignore /mid /mid/.gitignore"
	if got := strings.Join(outside, " "); got != want {
		t.Fatalf("outside inputs\n got %s\nwant %s", got, want)
	}
	// The same questions without a walk (path filters, check paths, the record destination).
	for p, want := range map[string]bool{"a.diary.md": true, "drafts/new.md": true, "notes/own-rule.md": true, "x.md": false, "new.md": false} {
		if got, err := policy.Ignored(context.Background(), bind(t, root), p); err != nil || got != want {
			t.Errorf("Ignored(%s) = %v, %v; want %v", p, got, err, want)
		}
	}
}

// Both rules must admit: the enclosing repository cannot re-include what
// the block ignores, and the block cannot re-include what the repository
// ignores.
func TestEnclosingAndBlockBothDecide(t *testing.T) {
	t.Parallel()
	outer, root := enclosed(t, "ws")
	testws.Write(t, outer, ".gitignore", "!ws/.vivary/runtime/\n!*.vivary-tmp\nws/notes/\n")
	a := admitted(t, root, []string{".vivary/runtime/r.md", "x.vivary-tmp/y.md", "notes/n.md", "ok.md"}, policy.Options{})
	if got := strings.Join(a.Allowed, ","); got != "ok.md" {
		t.Fatalf("allowed %s", got)
	}
	if fmt.Sprint(a.Omissions) != "[{privacy_excluded git_ignored 3}]" {
		t.Fatalf("omissions %v", a.Omissions)
	}
}

func TestEnclosedWorkspaceStillNeedsTheExactBlock(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{"missing": "", "arbitrary": "*.tmp\n", "extended": policy.GitignoreBlock + "x\n"} {
		t.Run(name, func(t *testing.T) {
			_, root := enclosed(t, "ws")
			if content == "" {
				os.Remove(filepath.Join(root, ".gitignore"))
			} else {
				testws.Write(t, root, ".gitignore", content)
			}
			testws.Write(t, root, "x.md", "x")
			_, err := policy.Admit(context.Background(), bind(t, root), []string{"x.md"}, policy.Options{})
			if codeOf(err) != reason.PrivacyPolicyUnavailable {
				t.Fatalf("%v", err)
			}
		})
	}
}

// Anything that keeps Git from being asked about the enclosing repository
// refuses, rather than falling back to the block alone.
func TestEnclosingRepositoryFailsClosed(t *testing.T) {
	t.Parallel()
	t.Run("a .git that git will not open", func(t *testing.T) {
		outer := filepath.Join(t.TempDir(), "outer")
		testws.Write(t, outer, ".git", "gitdir: /nonexistent/elsewhere\n")
		root := filepath.Join(outer, "ws")
		testws.Write(t, root, ".gitignore", policy.GitignoreBlock)
		testws.Write(t, root, "x.md", "x")
		_, err := policy.Admit(context.Background(), bind(t, root), []string{"x.md"}, policy.Options{})
		if codeOf(err) != reason.PrivacyPolicyUnavailable || !strings.Contains(err.Error(), "Git refuses to open") {
			t.Fatalf("%v", err)
		}
		if ig, err := policy.Ignored(context.Background(), bind(t, root), "x.md"); err == nil || !ig {
			t.Fatalf("Ignored answered %v, %v", ig, err)
		}
	})
	t.Run("an enclosing linked worktree", func(t *testing.T) {
		main := gitRepo(t)
		testws.Write(t, main, "f", "x")
		testws.Git(t, main, "add", "f")
		testws.Git(t, main, "-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "-qm", "init")
		linked := filepath.Join(t.TempDir(), "linked")
		testws.Git(t, main, "worktree", "add", "-q", linked)
		root := filepath.Join(linked, "ws")
		testws.Write(t, root, ".gitignore", policy.GitignoreBlock)
		testws.Write(t, root, "x.md", "x")
		_, err := policy.Admit(context.Background(), bind(t, root), []string{"x.md"}, policy.Options{})
		if codeOf(err) != reason.PrivacyPolicyUnavailable || !strings.Contains(err.Error(), "linked worktree") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("a linked .gitignore inside the workspace", func(t *testing.T) {
		outer, root := enclosed(t, "ws")
		testws.Write(t, outer, "rules", "x.md\n")
		os.MkdirAll(filepath.Join(root, "sub"), 0o755)
		os.Symlink(filepath.Join(outer, "rules"), filepath.Join(root, "sub", ".gitignore"))
		testws.Write(t, root, "sub/x.md", "x")
		_, err := policy.Admit(context.Background(), bind(t, root), []string{"sub/x.md"}, policy.Options{IgnoreFiles: []string{"sub/.gitignore"}})
		if codeOf(err) != reason.PrivacyPolicyUnavailable {
			t.Fatalf("%v", err)
		}
	})
}

// Outside Git, a nested .gitignore that is exactly the generated block is
// honoured beneath its own folder.
func TestNestedBlocksAreHonoured(t *testing.T) {
	t.Parallel()
	root := testws.Thin(t, map[string]string{
		"notes/.gitignore":   policy.GitignoreBlock,
		"a/b/.gitignore":     policy.GitignoreBlockCocoindex,
		".vivary/.gitignore": policy.GitignoreBlock, // .vivary/.vivary/runtime is ignored, .vivary/runtime already was
	})
	paths := []string{"notes/x.md", "notes/.vivary/runtime/r.md", "notes/.vivary/context.md", "a/b/.cocoindex_code/c.md",
		"a/.cocoindex_code/c.md", "a/.vivary/runtime/r.md", "a/b/.vivary/runtime/deep/r.md", ".vivary/.vivary/runtime/q.md", "top.md"}
	a := admitted(t, root, paths, policy.Options{IgnoreFiles: []string{".gitignore", "notes/.gitignore", "a/b/.gitignore", ".vivary/.gitignore"}})
	want := "a/.cocoindex_code/c.md,a/.vivary/runtime/r.md,notes/.vivary/context.md,notes/x.md,top.md"
	if got := strings.Join(a.Allowed, ","); got != want {
		t.Fatalf("allowed\n got %s\nwant %s", got, want)
	}
	// Without a walk, the blocks above a path are found on the way down.
	for p, want := range map[string]bool{"notes/.vivary/runtime/new.md": true, "a/b/.cocoindex_code/n.md": true, "notes/new.md": false} {
		if got, err := policy.Ignored(context.Background(), bind(t, root), p); err != nil || got != want {
			t.Errorf("Ignored(%s) = %v, %v; want %v", p, got, err, want)
		}
	}
}

// Any other nested .gitignore is arbitrary policy outside Git: it refuses,
// and the message says how to make Git's rules authoritative.
func TestNestedIgnoreFileWithOwnRulesRefuses(t *testing.T) {
	t.Parallel()
	cases := map[string]func(t *testing.T, dir string){
		"own rules":       func(t *testing.T, dir string) { testws.Write(t, dir, ".gitignore", "diary.md\n") },
		"block plus more": func(t *testing.T, dir string) { testws.Write(t, dir, ".gitignore", policy.GitignoreBlock+"diary.md\n") },
		"block with CRLF": func(t *testing.T, dir string) {
			testws.Write(t, dir, ".gitignore", strings.ReplaceAll(policy.GitignoreBlock, "\n", "\r\n"))
		},
		"block with BOM": func(t *testing.T, dir string) { testws.Write(t, dir, ".gitignore", "\ufeff"+policy.GitignoreBlock) },
		"empty":          func(t *testing.T, dir string) { testws.Write(t, dir, ".gitignore", "") },
		"negation":       func(t *testing.T, dir string) { testws.Write(t, dir, ".gitignore", "!.vivary/runtime/\n") },
		"a link to the block": func(t *testing.T, dir string) {
			testws.Write(t, filepath.Dir(dir), "block", policy.GitignoreBlock)
			os.Symlink("../block", filepath.Join(dir, ".gitignore"))
		},
		"a hard link to the block": func(t *testing.T, dir string) {
			testws.Write(t, filepath.Dir(dir), "block", policy.GitignoreBlock)
			os.Link(filepath.Join(filepath.Dir(dir), "block"), filepath.Join(dir, ".gitignore"))
		},
		"a directory": func(t *testing.T, dir string) { os.MkdirAll(filepath.Join(dir, ".gitignore"), 0o755) },
		"a FIFO":      func(t *testing.T, dir string) { mkfifo(t, filepath.Join(dir, ".gitignore")) },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			root := testws.Thin(t, map[string]string{"notes/diary.md": "x", "other/y.md": "y"})
			mutate(t, filepath.Join(root, "notes"))
			// With the walk's list, even a folder with no candidate counts.
			_, err := policy.Admit(context.Background(), bind(t, root), []string{"other/y.md"}, policy.Options{IgnoreFiles: []string{"notes/.gitignore"}})
			if codeOf(err) != reason.PrivacyPolicyUnavailable || !strings.Contains(err.Error(), "git init") {
				t.Fatalf("with the walk's list: %v", err)
			}
			if strings.Contains(err.Error(), "notes") || strings.Contains(err.Error(), root) {
				t.Fatalf("the message names a path: %v", err)
			}
			// Without it, a path beneath the folder finds it.
			_, err = policy.Admit(context.Background(), bind(t, root), []string{"notes/diary.md"}, policy.Options{})
			if codeOf(err) != reason.PrivacyPolicyUnavailable {
				t.Fatalf("without the walk's list: %v", err)
			}
			if ig, err := policy.Ignored(context.Background(), bind(t, root), "notes/diary.md"); err == nil || !ig {
				t.Fatalf("Ignored answered %v, %v", ig, err)
			}
		})
	}
}

// A .gitignore inside a folder a block ignores is never consulted (Git would
// not read it, and nothing beneath is admitted whatever it says), so tools
// that drop a `*` ignore file into their cache folders do not refuse the
// workspace.
func TestIgnoreFileInIgnoredFolderIsNotConsulted(t *testing.T) {
	t.Parallel()
	root := testws.Thin(t, map[string]string{
		".vivary/runtime/cache/.gitignore": "*\n",
		"x.vivary-tmp/.gitignore":          "!*\n",
		"notes/.gitignore":                 policy.GitignoreBlock,
		"notes/.vivary/runtime/.gitignore": "*\n",
	})
	files := []string{".vivary/runtime/cache/.gitignore", "x.vivary-tmp/.gitignore", "notes/.gitignore", "notes/.vivary/runtime/.gitignore"}
	a := admitted(t, root, []string{"STATE.md", ".vivary/runtime/cache/c.md", "notes/.vivary/runtime/n.md"}, policy.Options{IgnoreFiles: files})
	if got := strings.Join(a.Allowed, ","); got != "STATE.md" {
		t.Fatalf("allowed %s", got)
	}
}

// Nested blocks agree with Git: the same random trees, once as a Git
// worktree asked through git check-ignore and once outside Git.
func TestNestedBlocksAgreeWithGit(t *testing.T) {
	t.Parallel()
	dirs := []string{"", "a", "a/b", "notes", "notes/.vivary", ".vivary", "a/b/.vivary/runtime", "c.vivary-tmp"}
	leaves := []string{"x.md", ".vivary/runtime/r.md", ".vivary/runtime/deep/r.md", ".cocoindex_code/c.md", "t.vivary-tmp/t.md", ".vivary/privately/p.md"}
	total := 0
	for seed := int64(1); seed <= 12; seed++ {
		rng := rand.New(rand.NewSource(seed))
		files := map[string]string{}
		ignoreFiles := []string{".gitignore"}
		for _, d := range dirs[1:] {
			switch rng.Intn(3) {
			case 0:
				files[d+"/.gitignore"] = policy.GitignoreBlock
				ignoreFiles = append(ignoreFiles, d+"/.gitignore")
			case 1:
				files[d+"/.gitignore"] = policy.GitignoreBlockCocoindex
				ignoreFiles = append(ignoreFiles, d+"/.gitignore")
			}
		}
		var paths []string
		for _, d := range dirs {
			for _, l := range leaves {
				paths = append(paths, strings.TrimPrefix(d+"/"+l, "/"))
			}
		}
		sort.Strings(paths)
		thin := testws.Thin(t, files)
		for _, p := range paths {
			testws.Write(t, thin, p, "x\n")
		}
		// Every .gitignore is passed, even one under a folder a block
		// ignores, which a walk may not reach: the policy must disregard it.
		a, err := policy.Admit(context.Background(), bind(t, thin), paths, policy.Options{IgnoreFiles: ignoreFiles})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		repo := gitRepo(t)
		for p, c := range files {
			testws.Write(t, repo, p, c)
		}
		testws.Write(t, repo, ".gitignore", policy.GitignoreBlock)
		for _, p := range paths {
			testws.Write(t, repo, p, "x\n")
		}
		ignored := gitCheck(t, repo, paths)
		for _, p := range paths {
			if policy.Sensitive(p) {
				continue
			}
			total++
			if a.Admits(p) == ignored[p] {
				t.Errorf("seed %d %s: thin admitted=%v, git ignored=%v", seed, p, a.Admits(p), ignored[p])
			}
		}
	}
	if total < 400 {
		t.Fatalf("only %d cases", total)
	}
}
