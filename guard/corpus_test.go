package guard_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
)

// The false-positive corpus: ordinary notes must pass the screen. A
// placeholder is not a credential.

// TestTldrPlaceholdersAdmitted: the tldr pages the earlier screen dropped
// for placeholders ({{username}}:{{password}}, Authorization: Bearer token)
// are admitted.
func TestTldrPlaceholdersAdmitted(t *testing.T) {
	pages, _ := filepath.Glob("testdata/tldr/*.md")
	if len(pages) < 100 {
		t.Fatalf("only %d tldr pages in testdata", len(pages))
	}
	for _, p := range pages {
		if filepath.Base(p) == "LICENSE.md" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if guard.Credential(string(b)) {
			t.Errorf("%s is screened out", p)
		}
	}
}

// TestTldrCorpus measures the whole tldr corpus when the shared copy is
// there: at most 0.1% of its pages may be dropped.
func TestTldrCorpus(t *testing.T) {
	// shared/ stands beside the repository (CI) or beside the worktrees.
	root := ""
	for _, up := range []string{"../..", "../../.."} {
		if p := filepath.Join(up, "shared", "corpora", "tldr", "pages"); exists(p) {
			root = p
			break
		}
	}
	if root == "" {
		t.Skip("no shared/corpora/tldr beside the repository; testdata/tldr keeps the regression")
	}
	texts := markdownTexts(t, root)
	dropped := 0
	for _, s := range texts {
		if guard.Credential(s) {
			dropped++
		}
	}
	t.Logf("tldr: %d of %d pages dropped", dropped, len(texts))
	if dropped*1000 > len(texts) {
		t.Errorf("%d of %d tldr pages dropped, over 0.1%%", dropped, len(texts))
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestBenchCorpusAdmitted(t *testing.T) {
	for i, s := range benchTexts(t) {
		if guard.Credential(s) {
			t.Fatalf("bench note %d is screened out", i)
		}
	}
}

func TestExampleWorkspaceAdmitted(t *testing.T) {
	texts := markdownTexts(t, filepath.Join("..", "examples", "workspace"))
	if len(texts) == 0 {
		t.Fatal("no example notes")
	}
	for i, s := range texts {
		if guard.Credential(s) {
			t.Errorf("example note %d is screened out", i)
		}
	}
}

// TestProseAdmitted: notes that talk about tokens, keys and passwords
// without holding one.
func TestProseAdmitted(t *testing.T) {
	b, err := os.ReadFile("testdata/prose.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, para := range strings.Split(string(b), "\n\n") {
		if guard.Credential(para) {
			t.Errorf("paragraph %d is screened out: %q", i, para)
		}
	}
	if !strings.Contains(string(b), "password") {
		t.Fatal("prose corpus lost its subject")
	}
}
