package snapshot_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// Notes named in any script are read, invisible characters their script
// spells with included; a name disguised by such a character stays what it
// reads as (secret-looking), and a name that can fool a person is left out
// as unsafe with the rule it breaks.
func TestNamesInEveryScript(t *testing.T) {
	read := []string{
		"کتاب\u200cها/نرم\u200cافزار.md", // Persian: ZWNJ is its spelling
		"ភាសា\u200bខ្មែរ.md",             // Khmer: ZWSP between words
		"हिन्दी/क्\u200dष.md",            // Devanagari: ZWJ after a virama
		"👩\u200d💻 work.md",               // an emoji sequence
	}
	secret := []string{".e\u200bnv.md", "id_\u200crsa.md", "se\u00adcret.md", "to\u2060ken.md", "pass\ufe0fword.md",
		"\u200dcredentials.md"}
	unsafe := map[string]string{
		"n\u202egpj.md":             "direction control",
		"no\u200btes.md":            "invisible character outside a script",
		"ok\U000E0041\U000E0042.md": "tag character",
		"\ufeffbom.md":              "no script spells with",
		"a\x07b.md":                 "control character",
	}
	files := map[string]string{}
	for _, rel := range read {
		files[rel] = "# " + rel + "\n"
	}
	for _, rel := range secret {
		files[rel] = "# s\n"
	}
	for rel := range unsafe {
		files[rel] = "# u\n"
	}
	root := testws.Thin(t, files)
	snap, err := snapshot.Take(bg, testws.Bind(t, root), snapshot.Options{ListHidden: true})
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, d := range snap.Docs {
		docs = append(docs, d.Path)
	}
	for _, rel := range read {
		if !slices.Contains(docs, rel) {
			t.Errorf("%q was not read (documents %q)", rel, docs)
		}
	}
	hidden := map[string]snapshot.Hidden{}
	for _, h := range snap.Hidden {
		hidden[h.Path] = h
	}
	for _, rel := range secret {
		if h := hidden[rel]; h.Reason != "sensitive_name" {
			t.Errorf("%q: %+v, want a secret-looking name", rel, h)
		}
	}
	for rel, why := range unsafe {
		if h := hidden[rel]; h.Reason != "unsafe_path" || !strings.Contains(h.Detail, why) {
			t.Errorf("%q: %+v, want unsafe: %s", rel, h, why)
		}
	}
}

// With ListHidden every path left out is listed with its rule, the class
// and line of a credential but never its value; without it, nothing is.
func TestHiddenListsEveryPathWithItsRule(t *testing.T) {
	const key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
	root := testws.Thin(t, map[string]string{
		"notes/ok.md":          "# OK\n",
		"notes/leak.md":        "# Leak\n\nplain\nthe key is " + key + " for billing\n",
		"notes/secret-plan.md": "# S\n",
		"secrets/inside.md":    "# I\n",
		"notes/big.md":         "# Big\n\n" + strings.Repeat("x", 1<<20+1),
		"notes/twice.md":       "# T\n",
		"n\u202egpj.md":        "# U\n",
	})
	testws.Write(t, root, ".vivary/workspace.toml", strings.Replace(testws.Read(t, root, ".vivary/workspace.toml"),
		"exclude = [", `exclude = ["drafts", `, 1))
	testws.Write(t, root, "drafts/d.md", "# D\n")
	if err := os.Link(filepath.Join(root, "notes/twice.md"), filepath.Join(root, "twice-link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("notes/ok.md", filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	ws := testws.Bind(t, root)
	plain, err := snapshot.Take(bg, ws, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Hidden != nil {
		t.Fatalf("a snapshot not asked to list lists %v", plain.Hidden)
	}
	snap, err := snapshot.Take(bg, ws, snapshot.Options{ListHidden: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"notes/leak.md":        "document/sensitive_content",
		"notes/secret-plan.md": "document/sensitive_name",
		"secrets/":             "filesystem/sensitive_name",
		"notes/big.md":         "document/too_large",
		"notes/twice.md":       "document/hard_link_or_nonregular",
		"twice-link.md":        "document/hard_link_or_nonregular",
		"link.md":              "filesystem/link_or_reparse",
		"n\u202egpj.md":        "filesystem/unsafe_path",
		"drafts/":              "document/config_excluded",
	}
	got := map[string]string{}
	for _, h := range snap.Hidden {
		got[h.Path] = h.Kind + "/" + h.Reason
		if strings.Contains(h.Detail, key) || strings.Contains(h.Detail, "sk_live") {
			t.Errorf("%s: the detail %q shows the value", h.Path, h.Detail)
		}
		if h.Path == "notes/leak.md" && (h.Line != 4 || h.Detail != "holds a credential (stripe-access-token)") {
			t.Errorf("leak.md: %+v", h)
		}
	}
	for p, rule := range want {
		if got[p] != rule {
			t.Errorf("%s: %q, want %q", p, got[p], rule)
		}
	}
	// Every omission row's count is the number of paths listed for it.
	counts := map[string]int{}
	for _, h := range snap.Hidden {
		counts[h.Kind+"/"+h.Reason]++
	}
	for _, o := range snap.Omissions {
		if counts[o.Kind+"/"+o.Reason] != o.Count {
			t.Errorf("%s/%s counts %d, lists %d", o.Kind, o.Reason, o.Count, counts[o.Kind+"/"+o.Reason])
		}
	}
	if plain.Fingerprint != snap.Fingerprint {
		t.Error("listing changed the snapshot's fingerprint")
	}
}

// In Git, the paths Git ignores are listed for the owner, folders whole.
func TestHiddenListsIgnoredPaths(t *testing.T) {
	root := testws.Thin(t, map[string]string{"notes/a.md": "# A\n", "notes/x.draft.md": "# X\n", "archive/old.md": "# O\n"})
	testws.Write(t, root, ".gitignore", testws.Read(t, root, ".gitignore")+"archive/\n*.draft.md\n")
	testws.Git(t, root, "init", "-q")
	snap, err := snapshot.Take(bg, testws.Bind(t, root), snapshot.Options{ListHidden: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range snap.Hidden {
		got = append(got, h.Path+" "+h.Kind+"/"+h.Reason)
	}
	if want := []string{"archive/ privacy_excluded/git_ignored", "notes/x.draft.md privacy_excluded/git_ignored"}; !slices.Equal(got, want) {
		t.Fatalf("hidden %q, want %q", got, want)
	}
}
