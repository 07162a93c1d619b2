package snapshot

import (
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
)

func gitInit(t *testing.T, root string) {
	t.Helper()
	testws.Git(t, root, "init", "-q")
}

// gitListed is Git's own walk: the untracked files it does not ignore.
func gitListed(t *testing.T, root string) map[string]bool {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "--others", "--exclude-standard", "-z")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	got := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if strings.HasSuffix(p, ".md") {
			got[p] = true
		}
	}
	return got
}

// gitIgnoredFiles asks git check-ignore about each file.
func gitIgnoredFiles(t *testing.T, root string, paths []string) map[string]bool {
	t.Helper()
	cmd := exec.Command("git", "check-ignore", "--no-index", "--stdin", "-z")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("git check-ignore: %v", err)
	}
	got := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		got[p] = p != ""
	}
	return got
}

func served(s *Snapshot) map[string]bool {
	m := map[string]bool{}
	for _, d := range s.Docs {
		m[d.Path] = true
	}
	return m
}

// genPrunedTree writes nested folders and .gitignore files whose rules
// ignore folders whole, match folders by name or glob, and try to
// re-include files and folders beneath an ignored folder with negations.
func genPrunedTree(t *testing.T, root string, rng *rand.Rand, n int) []string {
	dirs := []string{"", "a", "a/b", "a/b/c", "logs", "logs/old", "docs", "docs/drafts", "build", "x/build", "keep", "keep/b"}
	names := []string{"x.md", "keep.md", "draft.md", "c.md", "notes.md"}
	patterns := []string{"a/", "/logs/", "logs", "!logs/keep.md", "!logs/old/", "b/", "!a/b/", "!keep.md", "docs/*",
		"!docs/drafts/", "**/c/", "build/", "!x/build/", "*/", "!keep/", "!*/", "draft*", "/a/b/c/*.md", "!c.md", "keep/**", "!keep/b/**"}
	for _, d := range dirs {
		if rng.Intn(3) == 0 {
			continue
		}
		var lines []string
		for i := 0; i < 1+rng.Intn(4); i++ {
			lines = append(lines, patterns[rng.Intn(len(patterns))])
		}
		testws.Write(t, root, filepath.Join(d, ".gitignore"), strings.Join(lines, "\n")+"\n")
	}
	seen := map[string]bool{}
	var files []string
	for len(files) < n {
		p := filepath.ToSlash(filepath.Join(dirs[rng.Intn(len(dirs))], names[rng.Intn(len(names))]))
		if !seen[p] {
			seen[p] = true
			testws.Write(t, root, p, "# N\n\nnote\n")
			files = append(files, p)
		}
	}
	sort.Strings(files)
	return files
}

// The pruning walk serves exactly what Git's rules admit: per file, as
// git check-ignore judges it, and as Git's own walk lists it. Git never
// re-includes anything inside an ignored folder, so neither may the walk.
func TestPruningAgreesWithGit(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	cases, pruned := 0, 0
	for seed := int64(1); seed <= 10; seed++ {
		root := filepath.Join(t.TempDir(), "ws")
		gitInit(t, mkdir(t, root))
		files := genPrunedTree(t, root, rand.New(rand.NewSource(seed)), 30)
		snap, err := Take(bg, testws.Bind(t, root), Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got := served(snap)
		ignored := gitIgnoredFiles(t, root, files)
		listed := gitListed(t, root)
		for _, f := range files {
			cases++
			if got[f] == ignored[f] || got[f] != listed[f] {
				t.Errorf("seed %d %s: served=%v, check-ignore ignored=%v, ls-files listed=%v", seed, f, got[f], ignored[f], listed[f])
			}
		}
		pruned += omitted(snap, "privacy_excluded", "git_ignored")
	}
	if cases < 300 || pruned == 0 {
		t.Fatalf("only %d cases, %d ignored", cases, pruned)
	}
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Outside Git the exact blocks prune as Git would: the same tree as a Git
// worktree lists the same files.
func TestThinPruningAgreesWithGit(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	extra := map[string]string{"sub/.gitignore": policy.GitignoreBlock}
	for _, d := range []string{"", "sub", ".vivary/runtime", ".vivary/runtime/deep", "x.vivary-tmp", "x.vivary-tmp/in",
		"sub/.vivary/runtime", "sub/.vivary/private", "notes", "notes/y.vivary-tmp", ".vivary", ".vivary/runtimes"} {
		for _, n := range []string{"a.md", "runtime.md", "c.vivary-tmp.md"} {
			extra[filepath.ToSlash(filepath.Join(d, n))] = "# N\n\nnote\n"
		}
	}
	thin := testws.Thin(t, extra)
	snap, err := Take(bg, testws.Bind(t, thin), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := served(snap)
	repo := testws.Thin(t, extra)
	gitInit(t, repo)
	want := gitListed(t, repo)
	for p := range extra {
		if strings.HasSuffix(p, ".md") && got[p] != want[p] {
			t.Errorf("%s: served outside Git %v, listed by Git %v", p, got[p], want[p])
		}
	}
	if omitted(snap, "privacy_excluded", "git_ignored") == 0 {
		t.Fatal("nothing was pruned")
	}
}

// A folder Git ignores is never entered: a link inside it (to secret notes,
// or a linked .gitignore that would refuse the call) is never met, and the
// walk does not list it (a folder beneath it that cannot be listed costs
// nothing either).
func TestIgnoredFolderIsNeverEntered(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	secret := t.TempDir()
	testws.Write(t, secret, "s.md", "# Quokka\n\nZEBRAMARKER\n")
	root := testws.Thin(t, map[string]string{
		"notes/a.md":        "# A\n",
		"archive/old/x.md":  "# X\n",
		"archive/keep.md":   "# Keep\n",
		"logs/keep.md":      "# Keep\n",
		"logs/sub/deep.md":  "# Deep\n",
		"notes/.gitignore":  "x.md\n",
		"archive/target.md": "",
	})
	os.Remove(filepath.Join(root, ".gitignore"))
	testws.Write(t, root, ".gitignore", ".vivary/private/\n.vivary/runtime/\narchive/\n!archive/keep.md\nlogs/*\n!logs/keep.md\n")
	os.Symlink(secret, filepath.Join(root, "archive", "linked"))
	os.Symlink("target.md", filepath.Join(root, "archive", ".gitignore"))
	os.Chmod(filepath.Join(root, "archive", "old"), 0)
	gitInit(t, root)
	var listed []string
	beforeList = func(dir string) { listed = append(listed, dir) }
	defer func() { beforeList = nil }()
	snap, err := Take(bg, testws.Bind(t, root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range listed {
		if d == "archive" || strings.HasPrefix(d, "archive/") || d == "logs/sub" {
			t.Errorf("the walk listed the ignored folder %s", d)
		}
	}
	got := served(snap)
	if !got["notes/a.md"] || !got["logs/keep.md"] || got["archive/keep.md"] || len(got) != 5 {
		t.Errorf("served %v", got)
	}
	if omitted(snap, "filesystem", "link_or_reparse") != 0 || !snap.Complete {
		t.Errorf("something under an ignored folder was met: %+v", snap.Omissions)
	}
}

// A folder swapped for a link between the moment the walk decided to enter
// it and the listing is not followed: its listing fails, the snapshot says
// it is incomplete, and it is never kept for reuse.
func TestFolderSwappedDuringTheWalk(t *testing.T) {
	secret := t.TempDir()
	testws.Write(t, secret, "s.md", "# Quokka\n\nZEBRAMARKER\n")
	root := testws.Thin(t, map[string]string{"notes/a.md": "# A\n"})
	beforeList = func(dir string) {
		if dir == "notes" {
			os.Rename(filepath.Join(root, "notes"), filepath.Join(root, "aside"))
			os.Symlink(secret, filepath.Join(root, "notes"))
		}
	}
	defer func() { beforeList = nil }()
	snap, err := Take(bg, testws.Bind(t, root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range snap.Docs {
		if holds(d, "# Quokka\n\nZEBRAMARKER\n") {
			t.Fatal("served a note from behind a swapped-in link")
		}
	}
	if snap.Complete || !snap.racy || omitted(snap, "filesystem", "directory_unavailable") != 1 {
		t.Errorf("complete %v, racy %v, omissions %+v", snap.Complete, snap.racy, snap.Omissions)
	}
}
