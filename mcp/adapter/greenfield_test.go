package adapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
)

// TestGreenfieldGovernedWrite is the product page's Verification paragraph:
// scaffold a real five-file workspace with create-vivary, start vivary-mcp
// over stdio, discover and call the four tools, prove the read phase made no
// file, then apply one separately approved capsule-bound record and query
// it through the same MCP session. No template, pack or extra record appears.
func TestGreenfieldGovernedWrite(t *testing.T) {
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
	root := filepath.Join(t.TempDir(), "project")
	run("init", root)
	if got := files(t, root); strings.Join(got, " ") != ".gitignore .vivary/context.md .vivary/workspace.toml AGENTS.md STATE.md" {
		t.Fatalf("init made %v", got)
	}
	before := testws.Hash(t, root)

	s := start(t, opts{}, root)
	if s.cs.InitializeResult().ProtocolVersion != "2026-07-28" {
		t.Fatalf("negotiated %s", s.cs.InitializeResult().ProtocolVersion)
	}
	list, err := s.cs.ListTools(context.Background(), nil)
	if err != nil || len(list.Tools) != 4 {
		t.Fatalf("tools: %v %v", err, list)
	}
	for name, args := range map[string]map[string]any{
		"vivary_find":  {"workspace": "ws0", "question": "what is the work loop"},
		"vivary_query": {"workspace": "ws0", "text": "hidden operator note"},
		"vivary_check": {"workspace": "ws0"},
	} {
		if got := s.reason(name, args); got != "known" {
			t.Fatalf("%s: %s", name, got)
		}
	}
	_, e, err := s.call("vivary_query", map[string]any{"workspace": "ws0", "text": "hidden operator note"})
	if err != nil {
		t.Fatal(err)
	}
	var q struct {
		Results []struct{ ID string } `json:"results"`
	}
	json.Unmarshal(e.Result, &q)
	if len(q.Results) != 0 {
		t.Fatalf("the scaffold matched %q: %v", "hidden operator note", q.Results)
	}
	_, e, err = s.call("vivary_capsule", map[string]any{"workspace": "ws0", "question": "greenfield MCP runtime proof"})
	if err != nil || e.Status != "known" {
		t.Fatalf("capsule: %v %+v", err, e)
	}
	if testws.Hash(t, root) != before {
		t.Fatal("the MCP read phase changed the workspace")
	}

	// The governed write happens outside MCP, through the human-approved CLI.
	work := t.TempDir()
	capsule := filepath.Join(work, "capsule.json")
	os.WriteFile(capsule, e.Result, 0o644)
	source := filepath.Join(work, "proof.md")
	os.WriteFile(source, []byte("---\nproject: context\nstatus: done\nslice: greenfield MCP runtime proof\n---\n# Earned operational proof\n\nThis record was created only after the exact capsule-bound plan was approved.\n"), 0o644)
	args := []string{"record", "--workspace", root, "--path", "changes/greenfield-mcp-proof.md", "--source", source, "--capsule", capsule}
	preview := run(args...)
	m := regexp.MustCompile(`plan_hash: (sha256:[0-9a-f]{64})`).FindStringSubmatch(preview)
	if m == nil || !strings.Contains(preview, "would apply one create") {
		t.Fatalf("preview: %s", preview)
	}
	if testws.Hash(t, root) != before {
		t.Fatal("the preview wrote")
	}
	applied := run(append(args, "--apply", m[1])...)
	if !strings.Contains(applied, "applied one create to .vivary/records/changes/greenfield-mcp-proof.md") {
		t.Fatalf("apply: %s", applied)
	}
	if got := files(t, root); strings.Join(got, " ") != ".gitignore .vivary/context.md .vivary/records/changes/greenfield-mcp-proof.md .vivary/workspace.toml AGENTS.md STATE.md" {
		t.Fatalf("after apply: %v", got)
	}

	// The same MCP session sees the new record on its very next call, at
	// once: nothing in the freshness proof waits for time to pass.
	_, e, err = s.call("vivary_query", map[string]any{"workspace": "ws0", "text": "earned operational proof", "type_filters": []string{"change"}})
	if err != nil || e.Status != "known" {
		t.Fatalf("query after apply: %v %+v", err, e)
	}
	json.Unmarshal(e.Result, &q)
	if len(q.Results) != 1 || q.Results[0].ID != "greenfield-mcp-proof" {
		t.Fatalf("results %v", q.Results)
	}
}

// files lists every file under root, sorted.
func files(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}
