package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
)

// Variants of the enclosing-repository class found by the second attack
// pass: each is a way the user's own Git ignores a file that an admission
// asking Git a slightly different question would serve.

// A name Git reads as pathspec magic (":/x" is "x from the top") must be
// judged as the path it is, in a worktree root and nested beneath one.
func TestPathspecMagicNamesAreJudgedLiterally(t *testing.T) {
	root := gitRepo(t)
	testws.Write(t, root, ".gitignore", "/:/\n/:(icase)x/\n")
	paths := []string{":/diary.md", ":(icase)x/diary.md", "diary.md"}
	a := admitted(t, root, paths, policy.Options{})
	if got := strings.Join(a.Allowed, ","); got != "diary.md" {
		t.Fatalf("git mode allowed %s", got)
	}
	outer, ws := enclosed(t, ":/ws")
	testws.Write(t, outer, ".gitignore", "/:/ws/diary.md\n")
	a = admitted(t, ws, []string{"diary.md", "kept.md"}, policy.Options{})
	if got := strings.Join(a.Allowed, ","); a.Mode != policy.ModeNested || got != "kept.md" {
		t.Fatalf("nested mode %s allowed %s", a.Mode, got)
	}
}

// A repository or submodule inside the workspace has ignore rules only its
// own Git reads (its info/exclude, its core.excludesFile): nothing beneath
// it is admitted, in a worktree and outside Git, by a walk or by name.
func TestNestedRepositoryIsKeptOut(t *testing.T) {
	for _, mode := range []string{"git", "thin"} {
		t.Run(mode, func(t *testing.T) {
			var root string
			if mode == "git" {
				root = gitRepo(t)
			} else {
				root = filepath.Join(t.TempDir(), "ws")
				testws.Write(t, root, ".gitignore", policy.GitignoreBlock)
			}
			os.MkdirAll(filepath.Join(root, "inner"), 0o755)
			testws.Git(t, filepath.Join(root, "inner"), "init", "-q")
			testws.Write(t, root, "inner/.git/info/exclude", "diary.md\n")
			testws.Write(t, root, "sub/.git", "gitdir: ../.git/modules/sub\n")
			paths := []string{"inner/diary.md", "inner/deep/n.md", "sub/diary.md", "kept.md"}
			a := admitted(t, root, paths, policy.Options{})
			if got := strings.Join(a.Allowed, ","); got != "kept.md" {
				t.Fatalf("allowed %s", got)
			}
			if got, err := policy.Ignored(context.Background(), bind(t, root), "inner/new.md"); err != nil || !got {
				t.Fatalf("Ignored(inner/new.md) = %v, %v", got, err)
			}
			s, err := policy.NewSession(context.Background(), bind(t, root))
			if err != nil {
				t.Fatal(err)
			}
			dirs, _, err := s.IgnoredDirs(context.Background(), []string{"inner", "sub", "inner/deep"})
			if err != nil || !dirs["inner"] || !dirs["sub"] || !dirs["inner/deep"] {
				t.Fatalf("IgnoredDirs = %v, %v", dirs, err)
			}
		})
	}
}

// The user's global core.ignoreCase makes their Git ignore Diary.md for a
// "diary.md" rule; the producers' Git, which reads no global config, must
// still agree.
func TestGlobalIgnoreCaseApplies(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // os.UserHomeDir on Windows
	t.Setenv("XDG_CONFIG_HOME", "")
	testws.Write(t, home, ".gitconfig", "[core]\n\tignoreCase = true\n")
	root := gitRepo(t)
	testws.Write(t, root, ".gitignore", "diary.md\n")
	a := admitted(t, root, []string{"Diary.md", "kept.md"}, policy.Options{})
	if got := strings.Join(a.Allowed, ","); got != "kept.md" {
		t.Fatalf("git mode allowed %s", got)
	}
	outer, ws := enclosed(t, "ws")
	testws.Write(t, outer, ".gitignore", "ws/diary.md\n")
	a = admitted(t, ws, []string{"DIARY.md", "kept.md"}, policy.Options{})
	if got := strings.Join(a.Allowed, ","); got != "kept.md" {
		t.Fatalf("nested mode allowed %s", got)
	}
}

// Outside Git the block's folders are matched without case: on a
// case-insensitive file system ".Vivary/Private" is the private folder.
func TestThinBlockIgnoresCase(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	testws.Write(t, root, ".gitignore", policy.GitignoreBlock)
	paths := []string{".Vivary/Private/p.md", ".VIVARY/RUNTIME/r.md", "a.VIVARY-TMP/x.md", "kept.md"}
	a := admitted(t, root, paths, policy.Options{})
	if got := strings.Join(a.Allowed, ","); got != "kept.md" {
		t.Fatalf("allowed %s", got)
	}
}

// Outside Git an ignore file whose name differs from .gitignore only by
// case is what Git reads on a case-insensitive file system: it refuses like
// any nested file that is not the exact block, at the root too.
func TestCaseVariantIgnoreFileRefuses(t *testing.T) {
	for _, f := range []string{"notes/.GITIGNORE", "notes/.GitIgnore", ".Gitignore"} {
		root := filepath.Join(t.TempDir(), "ws")
		testws.Write(t, root, ".gitignore", policy.GitignoreBlock)
		testws.Write(t, root, f, "diary.md\n")
		testws.Write(t, root, "notes/diary.md", "x\n")
		_, err := policy.Admit(context.Background(), bind(t, root), []string{"notes/diary.md"},
			policy.Options{IgnoreFiles: []string{".gitignore", f}})
		if codeOf(err) != "privacy_policy_unavailable" || !strings.Contains(err.Error(), "git init") {
			t.Errorf("%s: %v", f, err)
		}
		if got := policy.ForeignIgnoreFiles(bind(t, root), []string{f}); f != ".Gitignore" && len(got) != 1 {
			t.Errorf("%s: adopt sees foreign %v", f, got)
		}
	}
}

// Look-alike names the second pass found admitted: letters that draw
// nothing (Hangul fillers, the blank braille pattern), Cherokee letters,
// Cyrillic izhitsa for v, a capital I for l, and credentials whose prefix
// is written with a look-alike, a character reference or a filler.
func TestMoreLookAlikeNames(t *testing.T) {
	tok := "0123456789abcdefghijABCDEFGHIJ012345"
	for _, name := range []string{"sec\u3164ret.md", "sec\u115Fret.md", "sec\uFFA0ret.md", "sec\u2800ret.md",
		"\uABAAecret.md", "\u13DAECRET.md", ".en\u0475.md", "credentia\u0399s.md", "credentiaIs.md", "CREDENTIALS",
		"gh\u0440_" + tok + ".md", "ghp&#95;" + tok + ".md", "ghp_" + tok[:10] + "\u3164" + tok[10:] + ".md"} {
		if !policy.Sensitive("notes/"+name) || !policy.Sensitive(name+"/index.md") {
			t.Errorf("%q admitted", name)
		}
	}
	for _, name := range []string{"Index.md", "INSTALL.md", "Ideas.md", "LICENSE", "Illustrations.md", "한국어.md"} {
		if policy.Sensitive("notes/" + name) {
			t.Errorf("%q refused", name)
		}
	}
}
