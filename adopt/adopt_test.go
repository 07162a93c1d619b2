package adopt_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/adopt"
	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/doctor"
	"github.com/vivary-dev/vivary-go/greenfield"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/workspace/write"
)

var bg = context.Background()

// vault is a plain folder of notes in nested folders with an .obsidian/
// folder and no .gitignore, as people keep them.
func vault(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "vault")
	for rel, text := range map[string]string{
		".obsidian/app.json":           "{\"theme\": \"dark\"}\n",
		"Welcome.md":                   "# Welcome\n\nStart here.\n",
		"notes/Gardens.md":             "---\ntags: [garden]\n---\n# Gardens\n\nTomatoes need sun.\n",
		"notes/deep/Compost.md":        "# Compost\r\n\r\nTurn it weekly.\r\n",
		"notes/deep/attachments/a.png": "\x89PNG\r\n",
	} {
		testws.Write(t, root, rel, text)
	}
	return root
}

func preview(t *testing.T, root string, opt adopt.Options) *adopt.Plan {
	t.Helper()
	p, err := adopt.Preview(bg, root, opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func paths(p *adopt.Plan) (creates, patches []string) {
	for _, a := range p.Actions {
		if a.Kind == adopt.Create {
			creates = append(creates, a.Path)
		} else {
			patches = append(patches, a.Path)
		}
	}
	return
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAPlainFolderOfNotes(t *testing.T) {
	root := vault(t)
	before := testws.Hash(t, root)
	notes := map[string]string{}
	for _, rel := range []string{"Welcome.md", "notes/Gardens.md", "notes/deep/Compost.md", ".obsidian/app.json"} {
		notes[rel] = read(t, filepath.Join(root, rel))
	}
	p := preview(t, root, adopt.Options{})
	if testws.Hash(t, root) != before {
		t.Fatal("the preview changed the folder")
	}
	creates, patches := paths(p)
	if want := []string{".gitignore", ".vivary/context.md", ".vivary/workspace.toml", "AGENTS.md", "STATE.md"}; !slices.Equal(creates, want) || patches != nil {
		t.Fatalf("creates %v patches %v", creates, patches)
	}
	if p.Preset != "second-brain" || p.IgnoreMode != policy.ModeThin || !p.Applicable() {
		t.Fatalf("preset %s mode %s conflicts %v", p.Preset, p.IgnoreMode, p.Conflicts)
	}
	got, rep, err := adopt.Apply(bg, root, adopt.Options{}, p.Hash)
	if err != nil || !rep.OK || got.Hash != p.Hash {
		t.Fatalf("Apply: %v", err)
	}
	for rel, text := range notes {
		if read(t, filepath.Join(root, rel)) != text {
			t.Errorf("%s changed", rel)
		}
	}
	// The journal is gone; the runtime folder holds only the record an
	// undo reads.
	if names, err := os.ReadDir(filepath.Join(root, ".vivary/runtime")); err != nil || len(names) != 1 || names[0].Name() != filepath.Base(scaffold.RecordPath) {
		t.Errorf("the runtime folder holds %v (%v), want only the adoption record", names, err)
	}
	if read(t, filepath.Join(root, ".vivary/workspace.toml")) != scaffold.AdoptedWorkspaceTOML("second-brain", []string{}) {
		t.Error("workspace.toml is not the adopted template")
	}
	again := preview(t, root, adopt.Options{})
	if len(again.Actions) != 0 || !again.Applicable() || len(again.Kept) != 5 {
		t.Fatalf("re-adopt plans %v, kept %v, conflicts %v", again.Actions, again.Kept, again.Conflicts)
	}
	after := testws.Hash(t, root)
	if _, rep, err := adopt.Apply(bg, root, adopt.Options{}, again.Hash); err != nil || !rep.OK {
		t.Fatalf("applying the empty plan: %v", err)
	}
	if testws.Hash(t, root) != after {
		t.Fatal("applying the empty plan wrote")
	}
}

// The hash binds the files the plan decides on, not the owner's other notes.
func TestWhatTheHashBinds(t *testing.T) {
	root := vault(t)
	p := preview(t, root, adopt.Options{})
	testws.Write(t, root, "notes/Gardens.md", "# Gardens\n\nEdited in another window.\n")
	if preview(t, root, adopt.Options{}).Hash != p.Hash {
		t.Fatal("editing an unrelated note changed the plan hash")
	}
	testws.Write(t, root, "STATE.md", "# State\n")
	changed := preview(t, root, adopt.Options{})
	if changed.Hash == p.Hash {
		t.Fatal("a new STATE.md did not change the hash")
	}
	before := testws.Hash(t, root)
	_, _, err := adopt.Apply(bg, root, adopt.Options{}, p.Hash)
	if err == nil || !strings.Contains(err.Error(), "adopt plan hash mismatch: approved "+p.Hash+", current "+changed.Hash) {
		t.Fatalf("Apply with a stale hash = %v", err)
	}
	if testws.Hash(t, root) != before {
		t.Fatal("a refused apply wrote")
	}
	testws.Write(t, root, "tropo.toml", "[base]\nstrict = true\n")
	if preview(t, root, adopt.Options{}).Hash == changed.Hash {
		t.Fatal("a root tropo.toml (a type-policy input) did not change the hash")
	}
	// The same files in another folder are another target.
	other := vault(t)
	if preview(t, other, adopt.Options{}).Hash == preview(t, vault(t), adopt.Options{}).Hash {
		t.Fatal("two folders hash alike")
	}
	if preview(t, root, adopt.Options{Preset: "writing"}).Hash == preview(t, root, adopt.Options{}).Hash {
		t.Fatal("the preset is not bound")
	}
}

func TestAGitRepository(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	testws.Write(t, root, ".gitignore", "*.diary.md\nbuild/")
	testws.Write(t, root, "AGENTS.md", "\ufeff# Agents\r\n\r\nBe kind.\r\n")
	testws.Write(t, root, "docs/guide.md", "# Guide\n")
	testws.Write(t, root, "docs/me.diary.md", "# Private\n")
	testws.Git(t, root, "init", "-q")
	p := preview(t, root, adopt.Options{})
	creates, patches := paths(p)
	if !slices.Equal(patches, []string{".gitignore", "AGENTS.md"}) || !slices.Equal(creates, []string{".vivary/context.md", ".vivary/workspace.toml", "STATE.md"}) {
		t.Fatalf("creates %v patches %v", creates, patches)
	}
	if p.IgnoreMode != policy.ModeGit {
		t.Fatalf("mode %s", p.IgnoreMode)
	}
	if _, rep, err := adopt.Apply(bg, root, adopt.Options{}, p.Hash); err != nil || !rep.OK {
		t.Fatalf("Apply: %v", err)
	}
	if got := read(t, filepath.Join(root, ".gitignore")); got != "*.diary.md\nbuild/\n\n"+policy.GitignoreBlock {
		t.Fatalf(".gitignore = %q", got)
	}
	if got := read(t, filepath.Join(root, "AGENTS.md")); got != "\ufeff# Agents\r\n\r\nBe kind.\r\n\n"+scaffold.AgentsBlock {
		t.Fatalf("AGENTS.md = %q", got)
	}
	ws := testws.Bind(t, root)
	if ignored, err := policy.Ignored(bg, ws, "docs/me.diary.md"); err != nil || !ignored {
		t.Fatalf("the owner's ignored file is no longer ignored: %v %v", ignored, err)
	}
}

func TestConflictsSayWhatToChange(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		git   bool
		path  string
		want  string
	}{
		{"custom .gitignore outside Git", map[string]string{".gitignore": "*.log\n"}, false, ".gitignore", "run `git init` first so Git's rules apply, or remove them"},
		{"nested .gitignore outside Git", map[string]string{"notes/.gitignore": "diary.md\n"}, false, "notes/.gitignore", "a nested .gitignore with rules of its own"},
		{"AGENTS.md not UTF-8", map[string]string{"AGENTS.md": "\xff\xfe"}, false, "AGENTS.md", "AGENTS.md is not UTF-8"},
		{"two AGENTS blocks", map[string]string{"AGENTS.md": scaffold.AgentsFile + scaffold.AgentsBlock}, false, "AGENTS.md", "duplicate or malformed Vivary block"},
		{"a user context", map[string]string{".vivary/context.md": "# Mine\n"}, false, ".vivary/context.md", "the existing context has findings (line 1: E101"},
		{"an untyped context", map[string]string{".vivary/context.md": "---\nstatus: active\n---\n# Mine\n", ".vivary/workspace.toml": strings.Replace(scaffold.WorkspaceTOML("coding", []string{"agents"}), "folder = [\".vivary\", \"projects\"]", "folder = [\"projects\"]", 1)}, false, ".vivary/context.md", "not a thin-v0.3 project document"},
		{".vivary is a file", map[string]string{".vivary": "x"}, false, ".vivary", ".vivary must be a regular directory"},
		{"a .gitignore inside .vivary in Git", map[string]string{".vivary/.gitignore": "!private/\n"}, true, ".vivary/.gitignore", "can re-include"},
		{"a rule after the block in Git", map[string]string{".gitignore": policy.GitignoreBlock + "!.vivary/private/\n"}, true, ".gitignore", "leave .vivary/private/ committable"},
		{"an edited adapter", map[string]string{".agents/skills/vivary/SKILL.md": "mine\n"}, false, ".agents/skills/vivary/SKILL.md", "adapter content is user-owned"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "f")
			os.MkdirAll(root, 0o755)
			for rel, text := range c.files {
				testws.Write(t, root, rel, text)
			}
			if c.git {
				testws.Git(t, root, "init", "-q")
			}
			before := testws.Hash(t, root)
			p := preview(t, root, adopt.Options{Adapters: []string{"agents"}})
			i := slices.IndexFunc(p.Conflicts, func(x adopt.Conflict) bool { return x.Path == c.path })
			if i < 0 || !strings.Contains(p.Conflicts[i].Reason, c.want) {
				t.Fatalf("conflicts %v, want %s: ...%s", p.Conflicts, c.path, c.want)
			}
			if _, _, err := adopt.Apply(bg, root, adopt.Options{Adapters: []string{"agents"}}, p.Hash); err == nil || !strings.Contains(err.Error(), "adoption plan has conflicts: "+c.path) {
				t.Fatalf("Apply = %v", err)
			}
			if testws.Hash(t, root) != before {
				t.Fatal("a refused apply wrote")
			}
		})
	}
}

func TestAnInitWorkspaceHasNothingToApply(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	if _, err := greenfield.Init(bg, root, greenfield.Options{Preset: "writing", Adapters: []string{"claude"}}); err != nil {
		t.Fatal(err)
	}
	p := preview(t, root, adopt.Options{})
	if len(p.Actions) != 0 || !p.Applicable() || p.Preset != "writing" || !slices.Equal(p.Adapters, []string{"claude"}) {
		t.Fatalf("plan %+v", p)
	}
	if p := preview(t, root, adopt.Options{Preset: "coding"}); p.Applicable() {
		t.Fatal("another preset than the declared one is not a conflict")
	}
}

func TestAdapters(t *testing.T) {
	root := vault(t)
	old := strings.Replace(scaffold.Adapter("agents").Content, scaffold.GeneratorVersion, "0.0.9", 1)
	newer := strings.Replace(scaffold.Adapter("claude").Content, scaffold.GeneratorVersion, "99.0.0", 1)
	testws.Write(t, root, ".agents/skills/vivary/SKILL.md", old)
	testws.Write(t, root, ".claude/skills/vivary/SKILL.md", newer)
	p := preview(t, root, adopt.Options{Adapters: []string{"claude", "agents"}})
	if i := slices.IndexFunc(p.Actions, func(a adopt.Action) bool { return a.Kind == adopt.Replace }); i < 0 || p.Actions[i].Path != ".agents/skills/vivary/SKILL.md" {
		t.Fatalf("actions %v", p.Actions)
	}
	if len(p.Conflicts) != 1 || p.Conflicts[0].Path != ".claude/skills/vivary/SKILL.md" {
		t.Fatalf("conflicts %v", p.Conflicts)
	}
	os.Remove(filepath.Join(root, ".claude/skills/vivary/SKILL.md"))
	p = preview(t, root, adopt.Options{Adapters: []string{"claude", "agents"}})
	if _, rep, err := adopt.Apply(bg, root, adopt.Options{Adapters: []string{"agents", "claude"}}, p.Hash); err != nil || !rep.OK {
		t.Fatalf("Apply: %v", err)
	}
	for _, a := range []string{"agents", "claude"} {
		f := scaffold.Adapter(a)
		if read(t, filepath.Join(root, f.Path)) != f.Content {
			t.Errorf("%s is not the current adapter", f.Path)
		}
	}
	if !strings.Contains(read(t, filepath.Join(root, ".vivary/workspace.toml")), "\nadapters = [\"agents\", \"claude\"]\n") {
		t.Error("workspace.toml does not list the adapters")
	}
	if p := preview(t, root, adopt.Options{}); len(p.Actions) != 0 || !p.Applicable() {
		t.Fatalf("re-adopt without flags: %v %v", p.Actions, p.Conflicts)
	}
}

// A note Doctor would fail on is a conflict that names it in the preview.
func TestABrokenNoteIsAConflict(t *testing.T) {
	root := vault(t)
	testws.Write(t, root, "notes/bad.md", "---\ntags: [unclosed\n---\n# Bad\n")
	testws.Write(t, root, ".vivary/private/also-bad.md", "---\ntags: [unclosed\n---\n")
	p := preview(t, root, adopt.Options{})
	if len(p.Conflicts) != 1 || p.Conflicts[0].Path != "notes/bad.md" || !strings.Contains(p.Conflicts[0].Reason, "line 2: E001 invalid frontmatter") {
		t.Fatalf("conflicts %v", p.Conflicts)
	}
}

// When Doctor fails after the writes (here: a record whose reference
// resolves to nothing, a broken edge only the whole graph shows), every
// file is restored.
func TestDoctorFailureRestoresEverything(t *testing.T) {
	root := vault(t)
	testws.Write(t, root, ".vivary/records/changes/x.md", "---\nproject: p\nstatus: done\nslice: s\nrelated_changes: [nowhere]\n---\n# X\n")
	before := testws.Hash(t, root)
	p := preview(t, root, adopt.Options{})
	if !p.Applicable() {
		t.Fatalf("conflicts %v", p.Conflicts)
	}
	_, _, err := adopt.Apply(bg, root, adopt.Options{}, p.Hash)
	if err == nil || !strings.Contains(err.Error(), "Doctor failed after adopt: ") || !strings.Contains(err.Error(), "broken edge") || !strings.Contains(err.Error(), "every file was restored") {
		t.Fatalf("Apply = %v", err)
	}
	if testws.Hash(t, root) != before {
		t.Fatal("the rollback left the folder changed")
	}
}

// The journal's backups must fit the 1 MiB a recovery reads: checked
// before anything is written.
func TestJournalSizeIsReservedFirst(t *testing.T) {
	root := vault(t)
	testws.Write(t, root, "AGENTS.md", "# Agents\n\n"+strings.Repeat("Long instructions. ", 800<<10/19))
	before := testws.Hash(t, root)
	p := preview(t, root, adopt.Options{})
	if _, _, err := adopt.Apply(bg, root, adopt.Options{}, p.Hash); err == nil || !strings.Contains(err.Error(), "exceeds the recovery size limit") {
		t.Fatalf("Apply = %v", err)
	}
	if testws.Hash(t, root) != before {
		t.Fatal("a refused apply wrote")
	}
}

type killed struct{}

// killAt runs Apply and stops it dead (no rollback runs) at the nth
// occurrence of step, as a SIGKILL would. It reports whether the step was
// reached.
func killAt(t *testing.T, root string, opt adopt.Options, hash string, step write.Step, nth int) (reached bool) {
	t.Helper()
	return stopAt(t, step, nth, func() error { _, _, err := adopt.Apply(bg, root, opt, hash); return err })
}

// stopAt runs a write and stops it dead at the nth occurrence of step.
func stopAt(t *testing.T, step write.Step, nth int, run func() error) (reached bool) {
	t.Helper()
	seen := 0
	write.Hook = func(s write.Step, rel string) error {
		if s == step {
			if seen++; seen == nth {
				panic(killed{})
			}
		}
		return nil
	}
	defer func() {
		write.Hook = nil
		if r := recover(); r != nil {
			if r != (killed{}) {
				panic(r)
			}
			reached = true
		}
	}()
	if err := run(); err != nil {
		t.Fatalf("the write that was to be stopped failed: %v", err)
	}
	return false
}

// A process killed at every write step of an adoption leaves a state that
// Doctor reports and that a previewed, approved recovery restores to the
// very bytes (and folders) there were before.
func TestKillAtEveryStepThenRecover(t *testing.T) {
	scenarios := map[string]func(t *testing.T) (string, adopt.Options){
		"plain": func(t *testing.T) (string, adopt.Options) { return vault(t), adopt.Options{} },
		// Patches and a replacement: an empty .gitignore (outside Git it
		// becomes exactly the block), an AGENTS.md of the owner's, a stale
		// generated adapter and a new one.
		"patches": func(t *testing.T) (string, adopt.Options) {
			root := vault(t)
			testws.Write(t, root, ".gitignore", "")
			testws.Write(t, root, "AGENTS.md", "# Agents\n")
			testws.Write(t, root, ".agents/skills/vivary/SKILL.md", strings.Replace(scaffold.Adapter("agents").Content, scaffold.GeneratorVersion, "0.0.1", 1))
			return root, adopt.Options{Adapters: []string{"agents", "claude"}}
		},
	}
	for name, setup := range scenarios {
		// A kill at StepWrite or StepSync leaves what one at StepRename does:
		// a temp file beside its destination.
		for _, step := range []write.Step{write.StepMkdir, write.StepCreate, write.StepRename, write.StepUnlink} {
			for nth := 1; ; nth++ {
				root, opt := setup(t)
				before := testws.Hash(t, root)
				p := preview(t, root, opt)
				if !killAt(t, root, opt, p.Hash, step, nth) {
					os.RemoveAll(root)
					break
				}
				t.Run(fmt.Sprintf("%s/%s#%d", name, step, nth), func(t *testing.T) {
					r, err := adopt.PreviewRecovery(bg, root)
					if err != nil {
						t.Fatalf("recovery preview: %v", err)
					}
					if r.Source == "journal" || r.Source == "marker" {
						rep, err := doctor.Run(bg, root)
						if err != nil {
							t.Fatal(err)
						}
						found := slices.ContainsFunc(rep.Errors, func(e string) bool {
							return strings.Contains(e, "unfinished adoption journal exists; run `create-vivary adopt DIR --recover`") ||
								strings.Contains(e, "unfinished pre-journal adoption privacy change exists in .gitignore")
						})
						if !found {
							t.Fatalf("doctor does not report the interrupted adoption: %v", rep.Errors)
						}
					}
					state := testws.Hash(t, root)
					if _, err := adopt.Recover(bg, root, "sha256:0"); err == nil || testws.Hash(t, root) != state {
						t.Fatalf("a recovery with a wrong hash ran: %v", err)
					}
					if _, err := adopt.Recover(bg, root, r.Hash); err != nil {
						t.Fatalf("recover: %v", err)
					}
					if testws.Hash(t, root) != before {
						t.Fatalf("after recovery (from %s) the folder differs from before the adoption", r.Source)
					}
				})
				os.RemoveAll(root)
			}
		}
	}
}

// A journal that does not describe what adopt would have written refuses
// the recovery: it cannot be used to delete or overwrite the owner's files.
func TestAForgedJournalIsRefused(t *testing.T) {
	root := vault(t)
	testws.Write(t, root, "AGENTS.md", "# Mine\n")
	p := preview(t, root, adopt.Options{})
	killAt(t, root, adopt.Options{}, p.Hash, write.StepRename, 4)
	j := filepath.Join(root, scaffold.JournalPath)
	orig := read(t, j)
	for name, edit := range map[string]func(string) string{
		"another target": func(s string) string {
			return strings.Replace(s, `"canonical_path": "`, `"canonical_path": "/elsewhere`, 1)
		},
		"a duplicate key": func(s string) string { return strings.Replace(s, `"phase":`, `"phase": "planned", "phase":`, 1) },
		"not JSON":        func(s string) string { return s[:len(s)/2] },
		"an unknown key":  func(s string) string { return strings.Replace(s, `"completed"`, `"x_completed"`, 1) },
		// A journal rehashed so that "undoing" it would delete the owner's
		// AGENTS.md: its create is not what adopt generates.
		"a create of the owner's AGENTS.md": func(s string) string { return forge(t, s, "# Mine\n") },
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(j, []byte(edit(orig)), 0o644); err != nil {
				t.Fatal(err)
			}
			before := testws.Hash(t, root)
			if _, err := adopt.PreviewRecovery(bg, root); err == nil {
				t.Fatal("a forged journal was accepted")
			}
			if testws.Hash(t, root) != before {
				t.Fatal("a refused recovery wrote")
			}
		})
	}
	os.WriteFile(j, []byte(orig), 0o644)
	if _, err := adopt.PreviewRecovery(bg, root); err != nil {
		t.Fatalf("the genuine journal: %v", err)
	}
}

// A file the owner changed after adopt wrote it is never overwritten by a
// recovery; the recovery refuses and says which.
func TestRecoveryNeverTouchesNewerWork(t *testing.T) {
	root := vault(t)
	testws.Write(t, root, "AGENTS.md", "# Mine\n")
	p := preview(t, root, adopt.Options{})
	killAt(t, root, adopt.Options{}, p.Hash, write.StepRename, 5)
	testws.Write(t, root, "AGENTS.md", "# Mine, rewritten since\n")
	_, err := adopt.PreviewRecovery(bg, root)
	if err == nil || !strings.Contains(err.Error(), "recovery destination changed: AGENTS.md") {
		t.Fatalf("PreviewRecovery = %v", err)
	}
}

func TestAdoptRefusesWhileAnotherWriterRuns(t *testing.T) {
	root := vault(t)
	p := preview(t, root, adopt.Options{})
	var inner error
	write.Hook = func(s write.Step, rel string) error {
		if s == write.StepCreate && inner == nil {
			// A second apply and a recovery while the first holds the lock.
			_, _, inner = adopt.Apply(bg, root, adopt.Options{}, p.Hash)
			if _, err := adopt.Recover(bg, root, "sha256:0"); err == nil || !strings.Contains(err.Error(), "another create-vivary write") {
				inner = errors.Join(inner, fmt.Errorf("recover: %v", err))
			}
			if _, err := adopt.Preview(bg, root, adopt.Options{}); err != nil {
				inner = errors.Join(inner, fmt.Errorf("preview: %v", err))
			}
		}
		return nil
	}
	defer func() { write.Hook = nil }()
	if _, _, err := adopt.Apply(bg, root, adopt.Options{}, p.Hash); err != nil {
		t.Fatal(err)
	}
	if inner == nil || !strings.Contains(inner.Error(), "another create-vivary write") || strings.Contains(inner.Error(), "recover:") || strings.Contains(inner.Error(), "preview:") {
		t.Fatalf("inner = %v", inner)
	}
}

// forge turns the journal's AGENTS.md patch into a create of owner's bytes
// and rehashes the approval, as someone crafting a journal would.
func forge(t *testing.T, j, owner string) string {
	tree, err := canon.DecodeStrict([]byte(j))
	if err != nil {
		t.Fatal(err)
	}
	m := tree.(map[string]any)
	ap := m["approval"].(map[string]any)
	h := canon.Digest([]byte(owner))
	ap["patches"] = []any{}
	ap["creates"] = append(ap["creates"].([]any), map[string]any{"path": "AGENTS.md", "content_hash": h})
	for _, a := range m["actions"].([]any) {
		a := a.(map[string]any)
		if a["path"] == "AGENTS.md" {
			a["kind"], a["existed"], a["before"], a["before_hash"], a["after_hash"] = "create", false, nil, nil, h
		}
	}
	b, err := canon.Encode(ap, canon.Options{Order: canon.CodePoint, ASCII: true})
	if err != nil {
		t.Fatal(err)
	}
	m["plan_hash"] = canon.Digest(b)
	out, err := canon.Encode(m, canon.Options{Order: canon.CodePoint, ASCII: true})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// A marker line that is not exactly the one adopt writes, or not at the
// end, is reported as malformed; adopt and its recovery refuse to guess.
func TestAMalformedMarker(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	if _, err := greenfield.Init(bg, root, greenfield.Options{Preset: "coding"}); err != nil {
		t.Fatal(err)
	}
	testws.Write(t, root, ".gitignore", policy.GitignoreBlock+"# vivary-adopt-prejournal plan=sha256:00 existed=1\n")
	rep, err := doctor.Run(bg, root)
	if err != nil || !slices.Contains(rep.Errors, "malformed pre-journal adoption marker exists in .gitignore; remove the line that starts with `# vivary-adopt-prejournal`") {
		t.Fatalf("doctor: %v %v", err, rep.Errors)
	}
	if p := preview(t, root, adopt.Options{}); p.Applicable() || !strings.Contains(p.Conflicts[0].Reason, "malformed pre-journal adoption marker") {
		t.Fatalf("conflicts %v", p.Conflicts)
	}
	if _, err := adopt.PreviewRecovery(bg, root); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("PreviewRecovery = %v", err)
	}
}

// A folder inside a larger Git worktree: its .gitignore must be exactly the
// block (a custom one is a conflict saying where its rules can go), and the
// enclosing repository's rules keep applying after adoption.
func TestAFolderInsideALargerRepository(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	testws.Write(t, repo, ".gitignore", "*.diary.md\n")
	testws.Write(t, repo, "notes/Plan.md", "# Plan\n")
	testws.Write(t, repo, "notes/me.diary.md", "# Private\n")
	testws.Git(t, repo, "init", "-q")
	root := filepath.Join(repo, "notes")
	testws.Write(t, root, ".gitignore", "*.log\n")
	p := preview(t, root, adopt.Options{})
	if p.IgnoreMode != policy.ModeNested || len(p.Conflicts) != 1 || !strings.Contains(p.Conflicts[0].Reason, "move its rules to the enclosing repository's .gitignore") {
		t.Fatalf("mode %s conflicts %v", p.IgnoreMode, p.Conflicts)
	}
	os.Remove(filepath.Join(root, ".gitignore"))
	p = preview(t, root, adopt.Options{})
	if _, rep, err := adopt.Apply(bg, root, adopt.Options{}, p.Hash); err != nil || !rep.OK {
		t.Fatalf("Apply: %v", err)
	}
	if ignored, err := policy.Ignored(bg, testws.Bind(t, root), "me.diary.md"); err != nil || !ignored {
		t.Fatalf("the enclosing repository's rule no longer applies: %v %v", ignored, err)
	}
}

// Adopt reads notes through the very admission every read of the adopted
// workspace uses: a note the workspace will keep private (the block's
// folders in any case, a secret-looking or disguised name, a credential
// in its text, an ignored file) is never read, so never named as a
// conflict, while notes named in any script are.
func TestNotesAreAdmittedAsTheWorkspaceWillAdmitThem(t *testing.T) {
	const broken = "---\ntags: [unclosed\n---\n# Broken\n"
	for _, mode := range []string{"thin", "git", "nested"} {
		t.Run(mode, func(t *testing.T) {
			top := filepath.Join(t.TempDir(), "f")
			root := top
			if mode == "nested" {
				root = filepath.Join(top, "notes")
			}
			for _, rel := range []string{
				".Vivary/Runtime/r.md", ".VIVARY/Private/p.md", "a.VIVARY-TMP/x.md", ".vivary/private/also.md",
				"secrets/s.md", "id_\u200crsa.md", ".e\u200bnv.md", "se\u200bcret.md", "me.diary.md", ".obsidian/o.md",
				"n\u202egpj.md",
			} {
				testws.Write(t, root, rel, broken)
			}
			testws.Write(t, root, "leak.md", "---\ntags: [unclosed\n---\npassword = hunter2hunter2\n")
			want := []string{"bad.md", "کتاب\u200cها/نرم\u200cافزار.md", "ភាសា\u200bខ្មែរ.md"}
			for _, rel := range want {
				testws.Write(t, root, rel, broken)
			}
			if mode == "thin" {
				want = append(want, "me.diary.md") // no rule of Git's applies
			} else {
				testws.Write(t, top, ".gitignore", "*.diary.md\n")
				testws.Git(t, top, "init", "-q")
			}
			p := preview(t, root, adopt.Options{})
			var got []string
			for _, c := range p.Conflicts {
				got = append(got, c.Path)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("conflicts %v, want %v", p.Conflicts, want)
			}
		})
	}
}

// A .vivary that is a plain file is a conflict of its own, never a
// false "unfinished adoption journal", in the preview and in Doctor.
func TestAPlainVivaryFileIsNoJournal(t *testing.T) {
	root := vault(t)
	testws.Write(t, root, ".vivary", "x\n")
	p := preview(t, root, adopt.Options{})
	for _, c := range p.Conflicts {
		if strings.Contains(c.Reason, "journal") {
			t.Errorf("conflict %v", c)
		}
	}
	rep, err := doctor.Run(bg, root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rep.Errors {
		if strings.Contains(e, "journal") {
			t.Errorf("doctor: %s", e)
		}
	}
}
