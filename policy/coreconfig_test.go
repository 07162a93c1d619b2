package policy

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/reason"
)

// coreConfigCases are config files (the repository's, the user's global)
// whose core.excludesFile and core.ignoreCase the one-process question must
// read exactly as Git's own typed questions do.
var coreConfigCases = []struct{ repo, global string }{
	// The usual ones are settled by one process (oneProcess counts them).
	{"", ""},
	{"[core]\n\tignoreCase = true\n", ""},
	{"[core]\n\tignoreCase = false\n", "[core]\n\tignoreCase = true\n"},
	{"", "[core]\n\tignoreCase = YES\n\texcludesFile = ~/ignore-here\n"},
	{"[core]\n\texcludesFile = rel/ignore\n", "[core]\n\texcludesFile = /abs/global\n"},
	{"[core]\n\tignorecase\n", ""},
	{"[core]\n\tignoreCase = 2\n", ""},
	{"[core]\n\tignoreCase = 1k\n", ""},
	{"[core]\n\tignoreCase = 0\n", ""},
	{"[core]\n\tignoreCase =\n", ""},
	{"[core]\n\tignoreCase = maybe\n", ""},
	{"[core]\n\tignoreCase = On\n\tignoreCase = off\n", ""},
	{"[core]\n\texcludesFile =\n", "[core]\n\texcludesFile = /abs/global\n"},
	{"[core]\n\texcludesFile\n", ""},
	{"[core]\n\texcludesFile = ~nosuchuser/x\n", ""},
	{"[core]\n\texcludesFile = \"with\\nnewline\"\n", ""},
	{"[core \"sub\"]\n\texcludesFile = /not/this\n\tignoreCase = true\n", ""},
	{"[Core]\n\tExcludesFile = /a\n\tIGNORECASE = TRUE\n[core]\n\texcludesfile = /b\n", ""},
	{"[core]\n\texcludesFile = /a\n[include]\n\tpath = more\n", ""},
	{"not a config\n", ""},
	{"", "[core]\n\tignoreCase = true\n\texcludesFile = /x\n[core\n"},
}

const oneProcess = 5

func TestCoreConfigAgreesWithTypedQuestions(t *testing.T) {
	for i, c := range coreConfigCases {
		if apart := checkCoreConfig(t, i, c.repo, c.global); i < oneProcess && apart {
			t.Errorf("case %d took two git processes", i)
		}
	}
}

// FuzzCoreConfig writes arbitrary values for both keys and requires the
// one-process reading to agree with Git's two typed questions.
func FuzzCoreConfig(f *testing.F) {
	f.Add("/x", "true", false)
	f.Add("~/y", "no", true)
	f.Add("", "", false)
	f.Add("a\"b", "1", false)
	f.Fuzz(func(t *testing.T, excludes, fold string, global bool) {
		if strings.ContainsAny(excludes+fold, "\x00\n\r") {
			return
		}
		cfg := "[core]\n\texcludesFile = " + excludes + "\n\tignoreCase = " + fold + "\n"
		if global {
			checkCoreConfig(t, 0, "", cfg)
		} else {
			checkCoreConfig(t, 0, cfg, "")
		}
	})
}

// checkCoreConfig reports whether coreConfig fell back to two processes.
func checkCoreConfig(t *testing.T, i int, repo, global string) (apart bool) {
	t.Helper()
	home := t.TempDir()
	root := filepath.Join(home, "ws")
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if repo != "" {
		f, err := os.OpenFile(filepath.Join(root, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(repo)
		f.Close()
		os.WriteFile(filepath.Join(root, ".git", "more"), []byte("[core]\n\tignoreCase = true\n"), 0o644)
	}
	if global != "" {
		os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(global), 0o644)
	}
	env := []string{"PATH=" + gitPath, "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}
	ctx := context.Background()
	askedApart = func() { apart = true }
	ex, fold, err := coreConfig(ctx, root, env)
	askedApart = nil
	wantEx, wantFold, wantErr := coreConfigApart(ctx, root, env)
	if err != nil || wantErr != nil {
		t.Fatalf("case %d: git config did not run: %v, %v", i, err, wantErr)
	}
	if ex != wantEx || fold != wantFold {
		t.Errorf("case %d (repo %q, global %q): one question says %q %v, the typed questions %q %v", i, repo, global, ex, fold, wantEx, wantFold)
	}
	return apart
}

// TestCoreConfigThatDidNotRunIsNoAnswer: a git config that could not start
// or was ended before its exit said nothing about the user's excludes
// file. Read as "unset", it would drop that file's rules, and a cold call
// on a busy machine whose git ran out of time would serve what the user's
// own Git ignores.
func TestCoreConfigThatDidNotRunIsNoAnswer(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "ws")
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/private-ignore\n\tignoreCase = 2\n"), 0o644)
	env := []string{"PATH=" + gitPath, "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for name, ask := range map[string]func(context.Context, string, []string) (string, bool, error){
		"one question": coreConfig, "two questions": coreConfigApart,
	} {
		if ex, _, err := ask(ended, root, env); err == nil {
			t.Errorf("%s, its git ended before it ran: excludes %q and no error, want an error", name, ex)
		}
		ex, _, err := ask(context.Background(), root, env)
		if err != nil || !strings.HasSuffix(ex, "private-ignore") {
			t.Errorf("%s: %q, %v; want the excludes file", name, ex, err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	if ex, _, _, err := userExcludes(ended, root); err == nil || reason.Of(err) != reason.ProducerUnavailable {
		t.Errorf("userExcludes on an ended call: %q, %v; want producer_unavailable", ex, err)
	}
}
