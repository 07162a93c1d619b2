package adapter_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
)

// An existing folder of notes (nested folders, an .obsidian/ folder, no
// .gitignore) adopted with the real create-vivary, preview then approved
// apply, is served by all four tools, and every note is byte for byte
// what it was.
func TestAdoptedFolderServesAllFourTools(t *testing.T) {
	t.Parallel()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(create, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("create-vivary %v: %v\n%s", args, err, stderr.String())
		}
		return stdout.String()
	}
	root := filepath.Join(t.TempDir(), "vault")
	notes := map[string]string{
		".obsidian/app.json":        "{\"theme\": \"dark\"}\n",
		"Welcome.md":                "# Welcome\n\nStart with the garden plan.\n",
		"garden/Tomatoes.md":        "---\ntags: [garden]\n---\n# Tomatoes\n\nTomatoes need six hours of sun and deep watering.\n",
		"garden/beds/Compost.md":    "# Compost\n\nTurn the compost weekly; it feeds the tomatoes.\n",
		"garden/beds/layout.canvas": "{}\n",
	}
	for rel, text := range notes {
		testws.Write(t, root, rel, text)
	}
	before := testws.Hash(t, root)
	var plan struct {
		OK       bool   `json:"ok"`
		PlanHash string `json:"plan_hash"`
	}
	if err := json.Unmarshal([]byte(run("adopt", root, "--json")), &plan); err != nil || !plan.OK {
		t.Fatalf("preview: %v %+v", err, plan)
	}
	if testws.Hash(t, root) != before {
		t.Fatal("the preview wrote")
	}
	run("adopt", root, "--apply", plan.PlanHash)
	for rel, text := range notes {
		if b, err := os.ReadFile(filepath.Join(root, rel)); err != nil || string(b) != text {
			t.Fatalf("%s changed: %v", rel, err)
		}
	}
	adopted := testws.Hash(t, root)

	s := start(t, opts{}, root)
	for name, args := range map[string]map[string]any{
		"vivary_find":    {"workspace": "ws0", "question": "how much sun do tomatoes need"},
		"vivary_query":   {"workspace": "ws0", "text": "compost"},
		"vivary_check":   {"workspace": "ws0"},
		"vivary_capsule": {"workspace": "ws0", "question": "garden plan"},
	} {
		_, e, err := s.call(name, args)
		if err != nil || e.Status != "known" {
			t.Fatalf("%s: %v %+v", name, err, e)
		}
		switch name {
		case "vivary_find":
			if !strings.Contains(string(e.Result), "garden/Tomatoes.md") {
				t.Fatalf("find does not serve the adopted note: %s", e.Result)
			}
		case "vivary_query":
			if !strings.Contains(string(e.Result), "garden/beds/Compost.md") {
				t.Fatalf("query does not serve the adopted note: %s", e.Result)
			}
		}
	}
	if testws.Hash(t, root) != adopted {
		t.Fatal("the four tools wrote")
	}
}
