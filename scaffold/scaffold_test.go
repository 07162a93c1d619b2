package scaffold_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/scaffold"
)

func TestFiveFiles(t *testing.T) {
	files := scaffold.Files("proj", "coding")
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, " ") != ".gitignore .vivary/context.md .vivary/workspace.toml AGENTS.md STATE.md" {
		t.Fatalf("files %v", paths)
	}
	if files[0].Content != policy.GitignoreBlock {
		t.Fatal("the scaffold .gitignore is not the policy's block")
	}
	ctx := files[1].Content
	for _, s := range []string{"vivary-mcp --workspace project .", "create-vivary record", "separately installed", "## Work loop", "## Routes", "## Gates"} {
		if !strings.Contains(ctx, s) {
			t.Errorf("context.md lacks %q", s)
		}
	}
	words := regexp.MustCompile(`(?i)\b(hidden|operator|note)\b`)
	for _, f := range files {
		if words.MatchString(f.Content) {
			t.Errorf("%s holds a word the greenfield query must not find", f.Path)
		}
		if guard.Credential(f.Content) || guard.MachinePath(f.Content) {
			t.Errorf("%s holds text the firewall would refuse", f.Path)
		}
	}
	if !strings.Contains(files[2].Content, "\n# Optional Vivary metadata.") {
		t.Error("workspace.toml lacks the metadata comment")
	}
	if files[4].Content != "# State\n\nFocus:\n\nStatus:\n\nNext:\n\nOpen decisions:\n\nBlockers:\n\nChecks:\n\nUpdated:\n" {
		t.Error("STATE.md differs")
	}
}

// The built-in example workspace is a scaffold plus a few records.
func TestExampleWorkspaceIsAScaffold(t *testing.T) {
	root := filepath.Join("..", "examples", "workspace")
	for _, f := range scaffold.Files("workspace", scaffold.DefaultPreset) {
		b, err := os.ReadFile(filepath.Join(root, f.Path))
		if err != nil || string(b) != f.Content {
			t.Errorf("%s differs from the scaffold (%v)", f.Path, err)
		}
	}
}
