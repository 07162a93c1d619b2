package produce_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
)

// fidelityDocs is real-world frontmatter on which the Go version once
// differed from the reference: numbers and booleans where text was meant,
// Unicode whitespace, a scalar in a ref-list and a list in a ref, empty
// required values, and datetimes. Escapes are spelled out so the oddities
// stay visible.
var fidelityDocs = map[string]string{
	".vivary/records/changes/numbers.md": "---\nproject: 2026\nstatus: done\nslice: 42\nbranch: true\ntags: [2026, x, ~]\n---\n" +
		"#\u00a0Numbers as text\n\nYAML read\u00a0these values\u3000as numbers and booleans, and the writer meant text.\n",
	".vivary/records/changes/scalar-ref.md": "---\nproject:\u00a0p\nstatus: active\u3000\nslice: storage\nrelated_modules: storage\n---\n" +
		"# Scalar ref\x1f\n\nA single module named without brackets.\n",
	".vivary/records/changes/empty-status.md": "---\nproject: p\nstatus: \"\"\nslice: s\n---\n# Empty status\n",
	".vivary/records/modules/storage.md":      "---\nproject: p\nstatus: active\nmodule_area: storage\n---\n# Storage\n",
	".vivary/records/decisions/list-ref.md": "---\nproject: p\nstatus: accepted\ndate: 2026-08-10\nsupersedes: [storage, old-plan]\n---\n" +
		"# List in a ref\n",
	".vivary/records/gates/date-only.md": "---\nproject: p\nstatus: approved\ngate: g\napproved_at: 2026-11-20\n---\n# Date only\n",
	".vivary/records/gates/fraction.md":  "---\nproject: p\nstatus: approved\ngate: g\napproved_at: 2026-11-20T10:00.5Z\n---\n# Fraction\n",
}

func TestFidelityGolden(t *testing.T) {
	t.Parallel()
	root := testws.Thin(t, fidelityDocs)
	r := produce.NewReader(bindWS(t, root))
	check, err := r.Check(bg, produce.CheckArgs{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "fidelity_check.golden.json", jsonOf(t, check))
	for _, c := range []struct {
		name string
		args produce.QueryArgs
	}{
		// The NBSP and ideographic space collapse, so the snippet is printable;
		// "#<NBSP>Numbers" is a heading.
		{"fidelity_query_text.golden.json", produce.QueryArgs{Text: "values as numbers", Limit: 3, SnippetChars: 60, Explain: true}},
		// The scalar ref and the listed ref keep their edges.
		{"fidelity_query_edges.golden.json", produce.QueryArgs{Text: "storage", Limit: 10, SnippetChars: 0,
			Filters: produce.Filters{Edge: []string{"related_modules:storage"}}}},
		{"fidelity_query_supersedes.golden.json", produce.QueryArgs{Text: "storage", Limit: 10, SnippetChars: 0,
			Filters: produce.Filters{Edge: []string{"supersedes:storage"}}}},
	} {
		res, err := r.Query(bg, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		golden(t, c.name, jsonOf(t, res))
	}
}

// A broken policy file refuses the call with the file, the line and what
// the parser found, and never the root.
func TestPolicyFileErrorSaysWhere(t *testing.T) {
	t.Parallel()
	root := testws.Thin(t, nil)
	p := filepath.Join(root, ".vivary", "workspace.toml")
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	testws.Write(t, root, ".vivary/workspace.toml", string(orig)+"x = [\n")
	_, err = produce.NewReader(bindWS(t, root)).Check(bg, produce.CheckArgs{})
	want := fmt.Sprintf("the workspace policy file .vivary/workspace.toml is not valid TOML at line %d: ", strings.Count(string(orig), "\n")+1)
	if reason.Of(err) != reason.PrivacyPolicyUnavailable || !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), "; fix it there") {
		t.Fatalf("%v\nwant it to say %q", err, want)
	}
	if strings.Contains(err.Error(), root) {
		t.Fatalf("the message names the root: %v", err)
	}
}
