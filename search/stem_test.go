package search

import (
	"slices"
	"testing"
)

// The forms a question and a note use for one word meet on one term.
func TestStemFoldsForms(t *testing.T) {
	for _, group := range [][]string{
		{"file", "files"},
		{"create", "creates", "created", "creating"},
		{"copy", "copies", "copied", "copying"},
		{"run", "running"},
		{"compress", "compressed", "compressing"},
		{"process", "processes"},
		{"use", "uses", "using", "used"},
		{"move", "moved", "moving"},
		{"embed", "embedded", "embeds"},
		{"archive", "archives", "archiving", "archived"},
		{"change", "changes", "changed", "changing"},
		{"box", "boxes"},
		{"entry", "entries"},
	} {
		for _, w := range group[1:] {
			if stem(w) != stem(group[0]) {
				t.Errorf("%q stems to %q, %q to %q", w, stem(w), group[0], stem(group[0]))
			}
		}
	}
	for _, w := range []string{"status", "this", "string", "alias", "speed", "decision-0001", "ls", "ps"} {
		if stem(w) != w {
			t.Errorf("%q stems to %q, want it kept", w, stem(w))
		}
	}
}

func TestTermsKeepIdentifiersWhole(t *testing.T) {
	for q, want := range map[string][]string{
		"What does DEC-0054 decide?":            {"dec-0054", "decid"},
		"how do I [c]reate an archive?":         {"creat", "archiv"},
		"git-ignore rules for decision-0001":    {"git", "ignor", "rule", "decision-0001"},
		"what is it":                            {"what", "is", "it"},
		"E[x]tract files from a tar.gz archive": {"extract", "file", "tar", "gz", "archiv"},
	} {
		if got := Terms(q); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", q, got, want)
		}
	}
}
