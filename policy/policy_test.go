package policy_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
)

var bind = testws.Bind

// gitRepo is a new, empty Git worktree.
func gitRepo(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	os.MkdirAll(root, 0o755)
	testws.Git(t, root, "init", "-q")
	return root
}

func codeOf(err error) reason.Code {
	if err == nil {
		return ""
	}
	return reason.Of(err)
}

var cands = []string{"AGENTS.md", "STATE.md", ".vivary/context.md", ".vivary/private/p.md", ".vivary/runtime/r.md", "a.vivary-tmp/x.md", "notes/x.md"}

func thinTree(t *testing.T) string {
	root := testws.Thin(t, nil)
	for _, c := range cands {
		testws.Write(t, root, c, "x\n")
	}
	return root
}

func TestThinPolicyMatrix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(t *testing.T, root string)
		want   reason.Code
	}{
		{"exact block", func(*testing.T, string) {}, ""},
		{"missing", func(t *testing.T, root string) { os.Remove(filepath.Join(root, ".gitignore")) }, reason.PrivacyPolicyUnavailable},
		{"changed", func(t *testing.T, root string) {
			testws.Write(t, root, ".gitignore", strings.Replace(policy.GitignoreBlock, "runtime/", "runtim/", 1))
		}, reason.PrivacyPolicyUnavailable},
		{"one byte short", func(t *testing.T, root string) {
			testws.Write(t, root, ".gitignore", policy.GitignoreBlock[:len(policy.GitignoreBlock)-1])
		}, reason.PrivacyPolicyUnavailable},
		{"extended", func(t *testing.T, root string) { testws.Write(t, root, ".gitignore", policy.GitignoreBlock+"*.md\n") }, reason.PrivacyPolicyUnavailable},
		{"arbitrary", func(t *testing.T, root string) { testws.Write(t, root, ".gitignore", "*.md\n") }, reason.PrivacyPolicyUnavailable},
		{"linked", func(t *testing.T, root string) {
			testws.Write(t, root, "block.txt", policy.GitignoreBlock)
			os.Remove(filepath.Join(root, ".gitignore"))
			os.Symlink("block.txt", filepath.Join(root, ".gitignore"))
		}, reason.PrivacyPolicyUnavailable},
		{"hard linked", func(t *testing.T, root string) {
			os.Link(filepath.Join(root, ".gitignore"), filepath.Join(root, "other"))
		}, reason.PrivacyPolicyUnavailable},
		{"cocoindex variant", func(t *testing.T, root string) { testws.Write(t, root, ".gitignore", policy.GitignoreBlockCocoindex) }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := thinTree(t)
			c.mutate(t, root)
			a, err := policy.Admit(context.Background(), bind(t, root), cands, policy.Options{})
			if got := codeOf(err); got != c.want {
				t.Fatalf("code = %q, want %q (%v)", got, c.want, err)
			}
			if err != nil {
				if strings.Contains(err.Error(), root) {
					t.Errorf("error names the root: %v", err)
				}
				return
			}
			if a.Mode != policy.ModeThin {
				t.Errorf("mode %s", a.Mode)
			}
			want := []string{".vivary/context.md", "AGENTS.md", "STATE.md", "notes/x.md"}
			if fmt.Sprint(a.Allowed) != fmt.Sprint(want) {
				t.Errorf("allowed %v, want %v", a.Allowed, want)
			}
			// .vivary/private is secret-looking by name; the other two are ignored.
			if fmt.Sprint(a.Omissions) != "[{privacy_excluded git_ignored 2} {privacy_excluded sensitive_name 1}]" {
				t.Errorf("omissions %+v", a.Omissions)
			}
		})
	}
}

func TestCandidateMustBeRegularSingleLink(t *testing.T) {
	t.Parallel()
	root := thinTree(t)
	os.Link(filepath.Join(root, "STATE.md"), filepath.Join(root, "copy.md"))
	_, err := policy.Admit(context.Background(), bind(t, root), []string{"copy.md"}, policy.Options{})
	if codeOf(err) != reason.PathRefused {
		t.Fatalf("hard link: %v", err)
	}
	os.Symlink("STATE.md", filepath.Join(root, "link.md"))
	_, err = policy.Admit(context.Background(), bind(t, root), []string{"link.md"}, policy.Options{})
	if codeOf(err) != reason.PathRefused {
		t.Fatalf("symlink: %v", err)
	}
	_, err = policy.Admit(context.Background(), bind(t, root), []string{"../x.md"}, policy.Options{})
	if codeOf(err) != reason.PathRefused {
		t.Fatalf("dotdot: %v", err)
	}
}

func TestSensitiveNamesNeverAdmitted(t *testing.T) {
	t.Parallel()
	root := thinTree(t)
	// Files of a secret-looking folder next to, before and after files of
	// ordinary ones: each folder's verdict holds for all its files only.
	names := []string{".env.md", "notes/api-key.md", "my-secrets-plan.md", "tokens.md", ".ssh/x.md", "ＴＯＫＥＮ.md",
		"notes/.ssh/a.md", "notes/.ssh/b.md", "notes/.ssh/deeper/c.md", "credentials/notes/d.md", "notes/sub/token.md",
		"notes/ｓｅｃｒｅｔｓ/a.md", "notes/api%2Dkey/b.md"}
	kept := []string{"STATE.md", "notes/ok.md", "notes/sub/ok.md", "notes/sub/deeper/ok.md", "zz/ok.md"}
	for _, n := range append(names, kept...) {
		testws.Write(t, root, n, "x\n")
	}
	a, err := policy.Admit(context.Background(), bind(t, root), append(names, kept...), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a.Allowed) != "[STATE.md notes/ok.md notes/sub/deeper/ok.md notes/sub/ok.md zz/ok.md]" {
		t.Fatalf("allowed %v", a.Allowed)
	}
	if a.Omissions[0].Reason != "sensitive_name" || a.Omissions[0].Count != len(names) {
		t.Fatalf("omissions %+v", a.Omissions)
	}
}

// gitCheck asks git directly which of paths are ignored.
func gitCheck(t *testing.T, root string, paths []string) map[string]bool {
	t.Helper()
	cmd := exec.Command("git", "check-ignore", "--no-index", "--stdin", "-z")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("git check-ignore: %v", err)
	}
	got := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			got[p] = true
		}
	}
	return got
}

// genTree writes random nested .gitignore files with negations and random
// Markdown files; it returns the file paths.
func genTree(t *testing.T, root string, rng *rand.Rand, n int) []string {
	dirs := []string{"", "a", "a/b", "docs", "docs/private-ish", "build", "a/b/c", "logs"}
	names := []string{"x.md", "keep.md", "draft.md", "build.md", "log.md", "a.md", "tmp.md", "notes.md"}
	patterns := []string{"*.md", "!keep.md", "draft.*", "/build/", "build", "b/", "**/c/*.md", "!**/c/keep.md", "log*", "docs/*", "!docs/x.md", "tmp.md", "a/**/notes.md", "?.md", "[dk]*.md"}
	for _, d := range dirs {
		if rng.Intn(2) == 0 {
			continue
		}
		var lines []string
		for i := 0; i < 1+rng.Intn(3); i++ {
			lines = append(lines, patterns[rng.Intn(len(patterns))])
		}
		testws.Write(t, root, filepath.Join(d, ".gitignore"), strings.Join(lines, "\n")+"\n")
	}
	seen := map[string]bool{}
	var files []string
	for len(files) < n {
		p := filepath.ToSlash(filepath.Join(dirs[rng.Intn(len(dirs))], names[rng.Intn(len(names))]))
		if seen[p] {
			continue
		}
		seen[p] = true
		testws.Write(t, root, p, "x\n")
		files = append(files, p)
	}
	sort.Strings(files)
	return files
}

func TestGitPolicyAgreesWithGit(t *testing.T) {
	t.Parallel()
	total := 0
	for seed := int64(1); seed <= 8; seed++ {
		root := gitRepo(t)
		rng := rand.New(rand.NewSource(seed))
		files := genTree(t, root, rng, 30)
		a, err := policy.Admit(context.Background(), bind(t, root), files, policy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a.Mode != policy.ModeGit {
			t.Fatalf("mode %s", a.Mode)
		}
		ignored := gitCheck(t, root, files)
		for _, f := range files {
			total++
			if a.Admits(f) == ignored[f] {
				t.Errorf("seed %d %s: admitted=%v git-ignored=%v", seed, f, a.Admits(f), ignored[f])
			}
		}
	}
	if total < 200 {
		t.Fatalf("only %d cases", total)
	}
}

func TestThinBlockAgreesWithGit(t *testing.T) {
	t.Parallel()
	root := gitRepo(t)
	testws.Write(t, root, ".gitignore", policy.GitignoreBlock)
	var paths []string
	for _, d := range []string{"", ".vivary", ".vivary/runtime/deep", ".vivary/runtime", ".vivary/privately", "x.vivary-tmp", "a/.vivary/runtime", "notes", "notes/y.vivary-tmp"} {
		for _, n := range []string{"a.md", "b.vivary-tmp", "privy", "runtime.md", "c.vivary-tmp.md"} {
			paths = append(paths, filepath.ToSlash(filepath.Join(d, n)))
		}
	}
	for _, p := range paths {
		testws.Write(t, root, p, "x\n")
	}
	ignored := gitCheck(t, root, paths)
	// The same tree outside Git (a copy without .git) uses the thin matcher.
	thin := filepath.Join(t.TempDir(), "thin")
	for _, p := range append(paths, ".gitignore") {
		b, _ := os.ReadFile(filepath.Join(root, p))
		testws.Write(t, thin, p, string(b))
	}
	a, err := policy.Admit(context.Background(), bind(t, thin), paths, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if a.Admits(p) == ignored[p] {
			t.Errorf("%s: thin admitted=%v, git ignored=%v", p, a.Admits(p), ignored[p])
		}
	}
}

func TestGitFailsClosed(t *testing.T) {
	t.Run("linked gitignore", func(t *testing.T) {
		root := gitRepo(t)
		testws.Write(t, root, "x.md", "x")
		testws.Write(t, root, "rules", "x.md\n")
		os.MkdirAll(filepath.Join(root, "sub"), 0o755)
		os.Symlink("../rules", filepath.Join(root, "sub", ".gitignore"))
		_, err := policy.Admit(context.Background(), bind(t, root), []string{"x.md"}, policy.Options{IgnoreFiles: []string{"sub/.gitignore"}})
		if codeOf(err) != reason.PrivacyPolicyUnavailable {
			t.Fatal(err)
		}
	})
	t.Run("dot git file", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "other")
		os.MkdirAll(other, 0o755)
		testws.Git(t, other, "init", "-q")
		root := filepath.Join(t.TempDir(), "wt")
		testws.Write(t, root, ".git", "gitdir: "+filepath.Join(other, ".git")+"\n")
		testws.Write(t, root, "x.md", "x")
		_, err := policy.Admit(context.Background(), bind(t, root), []string{"x.md"}, policy.Options{})
		if codeOf(err) != reason.PrivacyPolicyUnavailable {
			t.Fatal(err)
		}
	})
	t.Run("fsmonitor is never run", func(t *testing.T) {
		root := gitRepo(t)
		marker := filepath.Join(t.TempDir(), "ran")
		testws.Git(t, root, "config", "core.fsmonitor", "touch "+marker)
		testws.Write(t, root, "x.md", "x")
		if _, err := policy.Admit(context.Background(), bind(t, root), []string{"x.md"}, policy.Options{}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("git ran the workspace's fsmonitor command")
		}
	})
	t.Run("inherited GIT_DIR is ignored", func(t *testing.T) {
		root := gitRepo(t)
		testws.Write(t, root, ".gitignore", "x.md\n")
		testws.Write(t, root, "x.md", "x")
		other := filepath.Join(t.TempDir(), "other")
		os.MkdirAll(other, 0o755)
		testws.Git(t, other, "init", "-q")
		t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
		t.Setenv("GIT_WORK_TREE", other)
		a, err := policy.Admit(context.Background(), bind(t, root), []string{"x.md"}, policy.Options{})
		if err != nil || a.Admits("x.md") {
			t.Fatalf("admitted an ignored file under inherited GIT_DIR: %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		root := gitRepo(t)
		testws.Write(t, root, "x.md", "x")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := policy.Admit(ctx, bind(t, root), []string{"x.md"}, policy.Options{})
		if err == nil {
			t.Fatal("a cancelled admission succeeded")
		}
	})
}

func TestSensitiveNameTable(t *testing.T) {
	t.Parallel()
	yes := []string{".env", ".env.local", ".ENV", ".envrc", "id_rsa", "id_rsa.pub", "server.pem", "site.KEY", "cert.p12",
		".npmrc", ".netrc", "credentials", "aws-credentials.md", "passwords.md", "api_key.md", "ＳＥＣＲＥＴ.md",
		".ssh", "private", "deploy_ed25519", "vault.kdbx", "u:p@host", "tokens.md", ".git-credentials"}
	no := []string{"environment.md", "notes.md", "keys-to-success.md", "privacy.md", "STATE.md", "AGENTS.md",
		".gitignore", "workspace.toml", "context.md", "monkey.md", "pemberton.md"}
	for _, s := range yes {
		if !policy.SensitiveName(s) {
			t.Errorf("%q should be sensitive", s)
		}
	}
	for _, s := range no {
		if policy.SensitiveName(s) {
			t.Errorf("%q should not be sensitive", s)
		}
	}
}

// The excludes file the user's own Git would use is honoured: the global
// core.excludesFile, Git's default location, and a repository's own
// core.excludesFile, which wins over the global one as it does in Git. Each
// file that decided it is reported for revalidation.
func TestUserExcludesFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // os.UserHomeDir on Windows
	t.Setenv("XDG_CONFIG_HOME", "")
	root := gitRepo(t)
	paths := []string{"a.md", "b.md", "c.md"}
	for _, p := range paths {
		testws.Write(t, root, p, "x\n")
	}
	admitted := func() (string, []string) {
		t.Helper()
		a, err := policy.Admit(context.Background(), bind(t, root), paths, policy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var outside []string
		for _, o := range a.Outside {
			outside = append(outside, filepath.ToSlash(strings.TrimPrefix(o.Path, home)))
		}
		return strings.Join(a.Allowed, ","), outside
	}
	if got, outside := admitted(); got != "a.md,b.md,c.md" || strings.Join(outside, " ") != "/.gitconfig /.config/git/config /.config/git/ignore" {
		t.Fatalf("no excludes: %s %v", got, outside)
	}
	testws.Write(t, home, ".config/git/ignore", "a.md\n")
	if got, _ := admitted(); got != "b.md,c.md" {
		t.Fatalf("default excludes file: %s", got)
	}
	testws.Write(t, home, "global-ignore", "b.md\n")
	testws.Write(t, home, ".gitconfig", "[core]\n\texcludesFile = ~/global-ignore\n")
	if got, outside := admitted(); got != "a.md,c.md" || outside[len(outside)-1] != "/global-ignore" {
		t.Fatalf("global core.excludesFile: %s %v", got, outside)
	}
	repoIgnore := filepath.Join(t.TempDir(), "repo-ignore")
	os.WriteFile(repoIgnore, []byte("c.md\n"), 0o644)
	testws.Git(t, root, "config", "core.excludesFile", repoIgnore)
	if got, outside := admitted(); got != "a.md,b.md" || outside[len(outside)-1] != filepath.ToSlash(repoIgnore) {
		t.Fatalf("repository core.excludesFile: %s %v", got, outside)
	}
}
