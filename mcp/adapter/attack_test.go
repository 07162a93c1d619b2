package adapter_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/attack"
	"github.com/vivary-dev/vivary-go/internal/testws"
)

// TestAttackCorpusOverMCP runs the whole leak corpus through the real
// binary with the Go SDK client: every call is answered whole (known), no
// marker reaches stdout, and the result firewall never had to fire,
// because the core dropped every note it would have refused.
func TestAttackCorpusOverMCP(t *testing.T) {
	t.Parallel()
	files, markers := attack.Corpus()
	root := testws.Thin(t, files)
	for _, version := range []string{"", "2025-11-25"} {
		s := start(t, opts{version: version}, root)
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"vivary_query", map[string]any{"workspace": "ws0", "text": attack.Words, "limit": 20, "snippet_chars": 1000, "explain": true}},
			{"vivary_find", map[string]any{"workspace": "ws0", "question": attack.Words, "limit": 20, "budget": 4000}},
			{"vivary_check", map[string]any{"workspace": "ws0"}},
			{"vivary_capsule", map[string]any{"workspace": "ws0", "question": attack.Words}},
		} {
			res, e, err := s.call(c.tool, c.args)
			if err != nil {
				t.Fatalf("%s: %v", c.tool, err)
			}
			if e.Status != "known" {
				t.Errorf("%s (%q): %s %v", c.tool, version, e.Status, *e.Reason)
			}
			out, _ := json.Marshal(res)
			for _, m := range markers {
				if strings.Contains(string(out), m) {
					t.Errorf("%s: marker %q returned", c.tool, m)
				}
			}
			if c.tool == "vivary_query" && !strings.Contains(string(out), attack.Clean) {
				t.Errorf("the clean note is missing: %s", out)
			}
		}
		if strings.Contains(s.stderr.String(), "result_firewall") {
			t.Errorf("the result firewall fired:\n%s", s.stderr)
		}
	}
}
