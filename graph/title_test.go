package graph

import (
	"regexp"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
)

// headingRe is the reference's r"^#\s+(.+)$" (re.M) with Python's \s
// (RE2's is ASCII only). Go's regexp picks the submatch a backtracking
// engine would, so "#\nText" is a heading of "Text" here too. nextHeading
// is held to it.
var headingRe = regexp.MustCompile(`(?m)^#` + guard.SpaceClass + `+(.+)$`)

// titleByListing is DeriveTitle as first written: every heading listed,
// the first outside the fences taken. DeriveTitle stops at the first.
func titleByListing(body, name string) string {
	fences := fencedRanges(body)
	for _, m := range headingRe.FindAllStringSubmatchIndex(body, -1) {
		if !inRanges(fences, m[0]) {
			return TrimText(guard.TrimSpace(body[m[2]:m[3]]), limits.MaxTitleChars)
		}
	}
	return name
}

func FuzzDeriveTitleAgrees(f *testing.F) {
	for _, s := range []string{
		"# Title\n\ntext", "```\n# not\n```\n# Yes\n", "~~~\n# a\n", "#\nText", "intro\n#  Spaced \r\n",
		"   ```sh\n# c\n   ```\n# T", "````\n```\n# in\n````\n# out", "#\u00a0nbsp\n", "## two\n# one",
		"```\n#\n```\n#\nafter", "x\n#", "#  \n# real",
		"#  \n", "# \n\n x", "#\n\n", "# \u00a0", "#\u3000\u3000", "a#\n# b", "##  x\n#\t\ty", "#\r\n", "# \xff\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if got, want := DeriveTitle(body, "name"), titleByListing(body, "name"); got != want {
			t.Fatalf("DeriveTitle(%q) = %q, listing every heading gives %q", body, got, want)
		}
		if strings.Count(body, "#") == 0 && DeriveTitle(body, "name") != "name" {
			t.Fatalf("a body without # has a title")
		}
	})
}
