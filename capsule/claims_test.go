package capsule

import (
	"regexp"
	"strings"
	"testing"
)

// wholeWordRef is the rule as the reference states it, one regexp per call.
func wholeWordRef(hay, term string) bool {
	re := regexp.MustCompile(`(^|[^a-z0-9])` + regexp.QuoteMeta(term) + `([^a-z0-9]|$)`)
	return re.MatchString(strings.ToLower(hay))
}

func TestWholeWord(t *testing.T) {
	for _, c := range []struct {
		hay, term string
		want      bool
	}{
		{"held-handles", "held", true},
		{"feat/held-handles", "held-handles", true},
		{"upheld", "held", false},
		{"helden", "held", false},
		{"HELD", "held", true},
		{"heldheld held", "held", true},
		{"Ünheld_x", "held", false},
		{"Ü/held_x", "held", true},
		{"held9", "held", false},
		{"", "held", false},
	} {
		if got := wholeWord(c.hay, c.term); got != c.want || got != wholeWordRef(c.hay, c.term) {
			t.Errorf("wholeWord(%q, %q) = %v, want %v", c.hay, c.term, got, c.want)
		}
	}
}

// wholeWord decides as the reference's regexp does, for every label and
// every term selectionTerms can give.
func FuzzWholeWord(f *testing.F) {
	f.Add("feat/held-handles", "where are the held handles")
	f.Add("\xffheld\u0130", "held")
	f.Fuzz(func(t *testing.T, hay, question string) {
		for _, term := range selectionTerms(question) {
			if got, want := wholeWord(hay, term), wholeWordRef(hay, term); got != want {
				t.Fatalf("wholeWord(%q, %q) = %v, the reference says %v", hay, term, got, want)
			}
		}
	})
}
