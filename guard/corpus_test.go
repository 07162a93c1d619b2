package guard_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// TestTldrCorpus measures the whole tldr corpus, every language, when the
// shared copy is there: at most 0.1% of its pages may be hidden for their
// content. -v lists the rate per language and the pages hidden.
func TestTldrCorpus(t *testing.T) {
	// shared/ stands beside the repository (CI) or beside the worktrees.
	root := ""
	for _, up := range []string{"../..", "../../.."} {
		if p := filepath.Join(up, "shared", "corpora", "tldr"); exists(filepath.Join(p, "pages")) {
			root = p
			break
		}
	}
	if root == "" {
		t.Skip("no shared/corpora/tldr beside the repository; testdata/tldr keeps the regression")
	}
	langs, _ := filepath.Glob(filepath.Join(root, "pages*"))
	total, hidden := 0, 0
	for _, lang := range langs {
		n, h := hiddenNotes(t, lang)
		total, hidden = total+n, hidden+h
		t.Logf("%s: %d of %d pages hidden", filepath.Base(lang), h, n)
	}
	t.Logf("tldr, %d languages: %d of %d pages hidden (%.3f%%)", len(langs), hidden, total, 100*float64(hidden)/float64(total))
	if total < 30000 {
		t.Errorf("only %d tldr pages", total)
	}
	if hidden*1000 > total {
		t.Errorf("%d of %d tldr pages hidden, over 0.1%%", hidden, total)
	}
}

// TestMarkdownCorpora measures other folders of Markdown: those named in
// VIVARY_FP_ORDINARY (separated by ":") are ordinary notes, held like tldr
// to at most 0.1% hidden for their content (bench/fp-corpus.sh fetches the
// multilingual one the README reports); those in VIVARY_FP_CORPORA, and
// the documentation of the interop packages when they are installed, are
// only measured, since such docs show example credentials on purpose. -v
// reports the share hidden and lists each hidden note (the README
// classifies them).
func TestMarkdownCorpora(t *testing.T) {
	ordinary := filepath.SplitList(os.Getenv("VIVARY_FP_ORDINARY"))
	roots := filepath.SplitList(os.Getenv("VIVARY_FP_CORPORA"))
	if p := filepath.Join("..", "interop", "node_modules"); exists(p) {
		roots = append(roots, p)
	}
	if len(roots)+len(ordinary) == 0 {
		t.Skip("no corpus: run bench/fp-corpus.sh, set VIVARY_FP_CORPORA or run npm ci in interop/")
	}
	for _, root := range append(ordinary, roots...) {
		n, h := hiddenNotes(t, root)
		t.Logf("%s: %d of %d notes hidden (%.2f%%)", root, h, n, 100*float64(h)/float64(max(n, 1)))
		if !slices.Contains(ordinary, root) {
			continue
		}
		if n < 100 {
			t.Errorf("%s: only %d notes, too few to measure", root, n)
		}
		if h*1000 > n {
			t.Errorf("%s: %d of %d notes hidden, over 0.1%%", root, h, n)
		}
	}
}

// hiddenNotes screens every .md file under root, logging each it hides.
func hiddenNotes(t *testing.T, root string) (n, hidden int) {
	t.Helper()
	for _, s := range markdownTextsNamed(t, root) {
		n++
		if guard.Credential(s.text) {
			hidden++
			t.Logf("hidden: %s", s.path)
		}
	}
	return n, hidden
}

type namedText struct{ path, text string }

func markdownTextsNamed(tb testing.TB, root string) []namedText {
	tb.Helper()
	var out []namedText
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		out = append(out, namedText{p, string(b)})
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
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
