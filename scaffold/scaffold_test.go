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

// Each adapter is one small generated file with the version header, listed
// in workspace.toml; the config with adapters is a valid thin config.
func TestAdapters(t *testing.T) {
	files := scaffold.Files("proj", "coding", "agents", "claude")
	if len(files) != 7 || files[5].Path != ".agents/skills/vivary/SKILL.md" || files[6].Path != ".claude/skills/vivary/SKILL.md" {
		t.Fatalf("files %v", files)
	}
	for _, f := range files[5:] {
		if len(f.Content) > scaffold.AdapterMaxBytes {
			t.Errorf("%s is %d bytes, over %d", f.Path, len(f.Content), scaffold.AdapterMaxBytes)
		}
		if !strings.HasPrefix(f.Content, "<!-- generated-by: create-vivary "+scaffold.GeneratorVersion+" -->\n---\nname: vivary\n") {
			t.Errorf("%s starts %q", f.Path, f.Content[:60])
		}
		for _, tool := range []string{"vivary_find", "vivary_query", "vivary_check", "vivary_capsule", "create-vivary record", "--apply"} {
			if !strings.Contains(f.Content, tool) {
				t.Errorf("%s does not mention %s", f.Path, tool)
			}
		}
		if guard.Credential(f.Content) || guard.MachinePath(f.Content) {
			t.Errorf("%s holds text the firewall would refuse", f.Path)
		}
	}
	toml := files[2].Content
	if !strings.Contains(toml, "\nadapters = [\"agents\", \"claude\"]\n") {
		t.Fatal("workspace.toml does not list the adapters")
	}
	raw, err := policy.ParseTOML([]byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := policy.Compose([]map[string]any{raw}, true); err != nil {
		t.Fatalf("the config with adapters is invalid: %v", err)
	}
	for _, bad := range [][]string{{"cursor"}, {"agents", "agents"}} {
		if _, err := scaffold.CheckAdapters(bad); err == nil {
			t.Errorf("CheckAdapters(%v) accepted", bad)
		}
	}
	if got, err := scaffold.CheckAdapters([]string{"claude", "agents"}); err != nil || strings.Join(got, ",") != "agents,claude" {
		t.Errorf("CheckAdapters = %v, %v", got, err)
	}
}

// The marker line reads back as written, only as the last line, and only
// once; anything else that carries its prefix is malformed.
func TestMarker(t *testing.T) {
	h := "sha256:" + strings.Repeat("ab", 32)
	for _, m := range []scaffold.Marker{
		{Plan: h, Before: "none", Dirs: 2},
		{Plan: h, Existed: true, Before: h, Size: 1234, Dirs: 0},
	} {
		for _, before := range []string{"", "*.log\n", policy.GitignoreBlock} {
			state, got, clean := scaffold.FindMarker([]byte(before + m.Line()))
			if state != scaffold.ValidMarker || got != m || string(clean) != before {
				t.Errorf("FindMarker(%q + %q) = %v %+v %q", before, m.Line(), state, got, clean)
			}
		}
		line := m.Line()
		for _, bad := range []string{line + "x\n", line + line, strings.TrimSuffix(line, "\n"), strings.Replace(line, "dirs=", "dirs=9", 1),
			strings.Replace(line, "plan=sha256:ab", "plan=sha256:AB", 1), "# vivary-adopt-prejournal \n", "x # vivary-adopt-prejournal plan=y\n" + line} {
			if state, _, _ := scaffold.FindMarker([]byte(bad)); state != scaffold.MalformedMarker {
				t.Errorf("FindMarker(%q) = %v, want malformed", bad, state)
			}
		}
	}
	if state, _, _ := scaffold.FindMarker([]byte(policy.GitignoreBlock)); state != scaffold.NoMarker {
		t.Error("the plain block has a marker")
	}
	inconsistent := scaffold.Marker{Plan: h, Existed: false, Before: h, Size: 3}
	if state, _, _ := scaffold.FindMarker([]byte(inconsistent.Line())); state != scaffold.MalformedMarker {
		t.Error("existed=0 with a before hash is accepted")
	}
}

// The adopted config claims only .vivary: the starter types become
// vivary_record_<type> in .vivary/records, and it is a valid thin config.
func TestAdoptedWorkspaceTOML(t *testing.T) {
	s := scaffold.AdoptedWorkspaceTOML("writing", []string{"agents"})
	raw, err := policy.ParseTOML([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := policy.Compose([]map[string]any{raw}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, rf := range scaffold.RecordFolders {
		if got := cfg.FolderMap[".vivary/records/"+rf.Folder]; got != "vivary_record_"+rf.Type {
			t.Errorf("%s holds %q", rf.Folder, got)
		}
		if _, ok := cfg.FolderMap[rf.Folder]; ok {
			t.Errorf("the adopted config claims the owner's %s/", rf.Folder)
		}
	}
	if _, ok := cfg.FolderMap["projects"]; ok || cfg.FolderMap[".vivary"] != "project" || cfg.Preset != "writing" {
		t.Errorf("folder map %v, preset %s", cfg.FolderMap, cfg.Preset)
	}
}
