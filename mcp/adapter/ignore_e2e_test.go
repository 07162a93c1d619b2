package adapter_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
)

// Over the wire, a workspace nested in a larger Git worktree serves nothing
// the enclosing repository ignores, and outside Git a nested copy of the
// block hides its folder's runtime files while a nested .gitignore with
// rules of its own refuses with a reason that says what to do.
func TestIgnoreRulesAboveAndBelowTheRoot(t *testing.T) {
	t.Parallel()
	outer := filepath.Join(t.TempDir(), "outer")
	os.MkdirAll(outer, 0o755)
	testws.Git(t, outer, "init", "-q")
	testws.Write(t, outer, ".gitignore", "*.diary.md\nws/parent-ignored.md\n")
	nested := filepath.Join(outer, "ws")
	for p, c := range map[string]string{
		".gitignore":            policy.GitignoreBlock,
		"notes/monday.diary.md": "# Monday\n\nquokka " + marker + "\n",
		"parent-ignored.md":     "# Parent\n\nquokka " + marker + "\n",
		"notes/visible.md":      "# Visible\n\nquokka\n",
	} {
		testws.Write(t, nested, p, c)
	}
	thin := testws.Thin(t, map[string]string{
		"sub/.gitignore":                 policy.GitignoreBlock,
		"sub/.vivary/runtime/session.md": "# Session\n\nquokka " + marker + "\n",
		"sub/visible.md":                 "# Visible\n\nquokka\n",
	})
	s := start(t, opts{}, nested, thin)
	for _, alias := range []string{"ws0", "ws1"} {
		for _, tool := range []string{"vivary_find", "vivary_query", "vivary_check"} {
			args := map[string]any{"workspace": alias}
			switch tool {
			case "vivary_find":
				args["question"] = "quokka"
			case "vivary_query":
				args["text"] = "quokka"
			}
			res, e, err := s.call(tool, args)
			if err != nil || e.Status != "known" {
				t.Fatalf("%s %s: %v %+v", alias, tool, err, e)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			for _, name := range []string{"diary", "parent-ignored", "session"} {
				if strings.Contains(text, name) {
					t.Fatalf("%s %s names an ignored file %q: %s", alias, tool, name, text)
				}
			}
			if tool != "vivary_check" && !strings.Contains(text, "visible") {
				t.Fatalf("%s %s lost the visible note: %s", alias, tool, text)
			}
		}
	}
	testws.Write(t, thin, "notes/.gitignore", "diary.md\n")
	// The refusal says what was found and what to do about it.
	_, e, err := s.call("vivary_query", map[string]any{"workspace": "ws1", "text": "quokka"})
	if err != nil || e.Reason == nil || *e.Reason != "privacy_policy_unavailable" ||
		!strings.Contains(e.Message, "nested .gitignore") || !strings.Contains(e.Message, "git init") {
		t.Fatalf("after a nested .gitignore with rules of its own: %v %+v", err, e)
	}
	if strings.Contains(e.Message, "notes") || strings.Contains(e.Message, thin) {
		t.Fatalf("the message names a path: %s", e.Message)
	}
	_, e, err = s.call("vivary_check", map[string]any{"workspace": "nosuch"})
	if err != nil || e.Status != "refused" || !strings.Contains(e.Message, "--workspace ALIAS PATH") {
		t.Fatalf("unknown alias: %v %+v", err, e)
	}
}
