package produce_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
)

// The argument bounds TestArgumentBoundaries leaves out, at max and max+1
// (and min-1 and min where there is a floor), each refusal naming the range
// from package limits.
func TestArgumentBoundsAtMaxAndOver(t *testing.T) {
	r := produce.NewReader(bindWS(t, fixture(t)))
	find := func(limit, budget int) error {
		_, err := r.Find(bg, produce.FindArgs{Question: "adapter", Limit: limit, Budget: budget})
		return err
	}
	inRange := fmt.Sprintf("between %d and %d", limits.MinFindBudget, limits.MaxFindBudget)
	for _, c := range []struct {
		name string
		err  error
		want string // "" accepted, else the refusal's text
	}{
		{"find budget max", find(limits.DefaultFindResults, limits.MaxFindBudget), ""},
		{"find budget max+1", find(limits.DefaultFindResults, limits.MaxFindBudget+1), "budget must be " + inRange},
		{"find budget min-1", find(limits.DefaultFindResults, limits.MinFindBudget-1), "budget must be " + inRange},
		{"find limit max", find(limits.MaxResults, limits.DefaultFindBudget), ""},
		{"find limit max+1", find(limits.MaxResults+1, limits.DefaultFindBudget), fmt.Sprintf("limit must be between 1 and %d", limits.MaxResults)},
		{"find limit 0", find(0, limits.DefaultFindBudget), fmt.Sprintf("limit must be between 1 and %d", limits.MaxResults)},
	} {
		switch {
		case c.want == "" && c.err != nil:
			t.Errorf("%s: refused: %v", c.name, c.err)
		case c.want != "" && (reason.Of(c.err) != reason.InvalidArguments || !strings.Contains(c.err.Error(), c.want)):
			t.Errorf("%s: %v, want invalid_arguments saying %q", c.name, c.err, c.want)
		}
	}
}

// A check holds exactly MaxFindings findings and refuses one more.
func TestFindingsAtMaxAndOver(t *testing.T) {
	if limits.MaxFindings%3 != 2 {
		t.Skip("the fixture below assumes MaxFindings = 3k+2")
	}
	extra := map[string]string{}
	n := limits.MaxFindings / 3
	for i := 0; i < n; i++ { // three E101 each: project, status and slice missing
		extra[fmt.Sprintf("changes/c%d.md", i)] = "# C\n"
	}
	extra["changes/two.md"] = "---\nproject: p\n---\n# C\n" // two E101
	root := testws.Thin(t, extra)
	res, err := produce.Check(bg, bindWS(t, root), produce.CheckArgs{})
	if err != nil {
		t.Fatalf("at %d findings: %v", limits.MaxFindings, err)
	}
	if len(res.Findings) != limits.MaxFindings {
		t.Fatalf("the fixture has %d findings, want %d", len(res.Findings), limits.MaxFindings)
	}
	os.Remove(filepath.Join(root, "changes/two.md"))
	testws.Write(t, root, "changes/two.md", "# C\n")
	if _, err := produce.Check(bg, bindWS(t, root), produce.CheckArgs{}); reason.Of(err) != reason.WorkLimitExceeded {
		t.Fatalf("at %d findings: %v", limits.MaxFindings+1, err)
	}
}

// Each filter value holds its character bound and refuses one more.
func TestFilterValuesAtMaxAndOver(t *testing.T) {
	r := produce.NewReader(bindWS(t, fixture(t)))
	edge := func(n int) string { // a FIELD:TARGET filter of n characters
		field := strings.Repeat("f", limits.MaxFieldChars)
		return field + ":" + strings.Repeat("t", n-len(field)-1)
	}
	for _, c := range []struct {
		name   string
		max    int
		filter func(n int) produce.Filters
	}{
		{"type_filters", limits.MaxTypeFilterChars, func(n int) produce.Filters { return produce.Filters{Type: []string{strings.Repeat("t", n)}} }},
		{"path_filters", limits.MaxPathChars, func(n int) produce.Filters { return produce.Filters{Path: []string{strings.Repeat("p", n)}} }},
		{"edge_filters", limits.MaxEdgeFilterChars, func(n int) produce.Filters { return produce.Filters{Edge: []string{edge(n)}} }},
	} {
		query := func(n int) error {
			_, err := r.Query(bg, produce.QueryArgs{Text: "adapter", Limit: limits.DefaultQueryResults, Filters: c.filter(n)})
			return err
		}
		if err := query(c.max); err != nil {
			t.Errorf("%s of %d characters: %v", c.name, c.max, err)
		}
		want := fmt.Sprintf("%s[0] must be non-empty and at most %d characters", c.name, c.max)
		if err := query(c.max + 1); reason.Of(err) != reason.InvalidArguments || !strings.Contains(err.Error(), want) {
			t.Errorf("%s of %d characters: %v, want %q", c.name, c.max+1, err, want)
		}
	}
}
