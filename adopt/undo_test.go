package adopt_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/adopt"
	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/doctor"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/workspace/write"
)

// adopted is a folder with patches, a stale adapter and a new one, adopted;
// it returns the folder and its hash before the adoption.
func adopted(t *testing.T) (string, string) {
	t.Helper()
	root := vault(t)
	testws.Write(t, root, ".gitignore", "")
	testws.Write(t, root, "AGENTS.md", "# Agents\n\nMine.")
	before := testws.Hash(t, root)
	opt := adopt.Options{Adapters: []string{"agents", "claude"}}
	p := preview(t, root, opt)
	if _, _, err := adopt.Apply(bg, root, opt, p.Hash); err != nil {
		t.Fatal(err)
	}
	return root, before
}

func undo(t *testing.T, root string) *adopt.Undo {
	t.Helper()
	u, err := adopt.PreviewUndo(bg, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := adopt.ApplyUndo(bg, root, u.Hash); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestUndoPutsTheFolderBack(t *testing.T) {
	root, before := adopted(t)
	state := testws.Hash(t, root)
	u, err := adopt.PreviewUndo(bg, root)
	if err != nil {
		t.Fatal(err)
	}
	if testws.Hash(t, root) != state {
		t.Fatal("the undo preview wrote")
	}
	var ops []string
	for _, s := range u.Steps {
		ops = append(ops, s.Operation+" "+s.Path)
	}
	want := []string{"remove .agents/skills/vivary/SKILL.md", "remove .claude/skills/vivary/SKILL.md", "remove .vivary/context.md",
		"remove .vivary/workspace.toml", "remove-block AGENTS.md", "remove STATE.md", "remove-block .gitignore"}
	if !slices.Equal(ops, want) || len(u.Kept) != 0 {
		t.Fatalf("steps %q kept %v, want %q", ops, u.Kept, want)
	}
	if _, err := adopt.ApplyUndo(bg, root, "sha256:0"); err == nil || testws.Hash(t, root) != state {
		t.Fatalf("an undo with a wrong hash ran: %v", err)
	}
	if _, err := adopt.ApplyUndo(bg, root, u.Hash); err != nil {
		t.Fatal(err)
	}
	if testws.Hash(t, root) != before {
		t.Fatal("after the undo the folder differs from before the adoption")
	}
}

// A stale generated adapter adopt replaced is named and kept: adopt did not
// create it, and it kept no copy of the older one.
func TestUndoKeepsAReplacedAdapter(t *testing.T) {
	root := vault(t)
	stale := strings.Replace(scaffold.Adapter("agents").Content, scaffold.GeneratorVersion, "0.0.1", 1)
	testws.Write(t, root, ".agents/skills/vivary/SKILL.md", stale)
	opt := adopt.Options{Adapters: []string{"agents"}}
	if _, _, err := adopt.Apply(bg, root, opt, preview(t, root, opt).Hash); err != nil {
		t.Fatal(err)
	}
	u := undo(t, root)
	if len(u.Kept) != 1 || u.Kept[0].Path != ".agents/skills/vivary/SKILL.md" || !strings.Contains(u.Kept[0].Reason, "replaced an older generated copy") {
		t.Fatalf("kept %v", u.Kept)
	}
	if read(t, filepath.Join(root, ".agents/skills/vivary/SKILL.md")) != scaffold.Adapter("agents").Content {
		t.Fatal("the replaced adapter was touched")
	}
}

// An undo killed at any write step leaves a folder that Doctor calls half
// undone (once the record is marked) and that a new, approved undo takes
// the rest of the way, to the very bytes and folders of before the
// adoption.
func TestUndoKilledAtEveryStepThenFinished(t *testing.T) {
	for _, step := range []write.Step{write.StepCreate, write.StepRename, write.StepUnlink, write.StepRmdir} {
		for nth := 1; ; nth++ {
			root, before := adopted(t)
			u, err := adopt.PreviewUndo(bg, root)
			if err != nil {
				t.Fatal(err)
			}
			if !stopAt(t, step, nth, func() error { _, err := adopt.ApplyUndo(bg, root, u.Hash); return err }) {
				if testws.Hash(t, root) != before {
					t.Fatalf("%s: an undo that ran through left the folder changed", step)
				}
				break
			}
			t.Run(fmt.Sprintf("%s#%d", step, nth), func(t *testing.T) {
				if rec, err := os.ReadFile(filepath.Join(root, scaffold.RecordPath)); err == nil && scaffold.UndoInterrupted(rec) {
					rep, err := doctor.Run(bg, root)
					if err != nil || !slices.ContainsFunc(rep.Errors, func(e string) bool { return strings.Contains(e, "half undone") }) {
						t.Fatalf("doctor does not report the half-done undo: %v %v", rep, err)
					}
				}
				if _, err := os.Stat(filepath.Join(root, scaffold.RecordPath)); err == nil {
					undo(t, root)
				}
				// A kill after the record went leaves at most the empty
				// folders adopt made, which the undo would have removed.
				for _, d := range []string{".vivary/runtime", ".vivary"} {
					os.Remove(filepath.Join(root, d))
				}
				if testws.Hash(t, root) != before {
					t.Fatal("after finishing the undo the folder differs from before the adoption")
				}
			})
		}
	}
}

// A step that fails (a file changed between the check and the write) puts
// every file already changed back and unmarks the record: the folder is
// as adopted, and the undo can be previewed again.
func TestUndoFailureRollsBack(t *testing.T) {
	root, _ := adopted(t)
	state := testws.Hash(t, root)
	u, err := adopt.PreviewUndo(bg, root)
	if err != nil {
		t.Fatal(err)
	}
	unlinks := 0
	write.Hook = func(s write.Step, rel string) error {
		if s == write.StepUnlink && rel == ".vivary/workspace.toml" {
			unlinks++
			return write.ErrChanged
		}
		return nil
	}
	_, err = adopt.ApplyUndo(bg, root, u.Hash)
	write.Hook = nil
	if unlinks != 1 || err == nil || !strings.Contains(err.Error(), "every file was put back") {
		t.Fatalf("ApplyUndo = %v (hooked %d)", err, unlinks)
	}
	if testws.Hash(t, root) != state {
		t.Fatal("the rolled-back undo left the folder changed")
	}
	if again, err := adopt.PreviewUndo(bg, root); err != nil || again.Hash != u.Hash {
		t.Fatalf("after the rollback the undo plans differently: %v", err)
	}
}

// A file the person changed since adopt wrote it is named and kept; a
// block with the person's edits above it is cut off and the edits kept.
func TestUndoKeepsNewerWork(t *testing.T) {
	root, _ := adopted(t)
	testws.Write(t, root, "STATE.md", "Focus: mine\n")
	agents := read(t, filepath.Join(root, "AGENTS.md"))
	testws.Write(t, root, "AGENTS.md", "# Edited on top\n"+agents)
	undo(t, root)
	if read(t, filepath.Join(root, "STATE.md")) != "Focus: mine\n" {
		t.Fatal("a changed STATE.md was touched")
	}
	if got := read(t, filepath.Join(root, "AGENTS.md")); got != "# Edited on top\n# Agents\n\nMine." {
		t.Fatalf("AGENTS.md = %q", got)
	}
}

// A record that describes anything but what adopt writes refuses the undo,
// so it cannot be used to delete the owner's files.
func TestAForgedRecordIsRefused(t *testing.T) {
	root, _ := adopted(t)
	rp := filepath.Join(root, scaffold.RecordPath)
	orig := read(t, rp)
	testws.Write(t, root, "notes/mine.md", "# Mine\n")
	rehash := func(path, content string) func(string) string {
		return func(s string) string {
			var r map[string]any
			if err := json.Unmarshal([]byte(s), &r); err != nil {
				t.Fatal(err)
			}
			e := r["adoptions"].([]any)[0].(map[string]any)
			e["actions"] = append(e["actions"].([]any), map[string]any{"path": path, "kind": "create",
				"after_hash": canon.Digest([]byte(content)), "before_hash": nil, "inserted_text": nil})
			b, _ := json.Marshal(r)
			return string(b)
		}
	}
	for name, edit := range map[string]func(string) string{
		"a note of the owner's":         rehash("notes/mine.md", "# Mine\n"),
		"an owner's STATE.md":           rehash("STATE.md", "# Mine\n"),
		"not JSON":                      func(s string) string { return s[:len(s)/2] },
		"an unknown key":                func(s string) string { return strings.Replace(s, `"made_dirs"`, `"x_dirs"`, 1) },
		"a duplicate key":               func(s string) string { return strings.Replace(s, `"schema":`, `"schema": "x", "schema":`, 1) },
		"a folder adopt never makes":    func(s string) string { return strings.Replace(s, `".vivary/runtime"`, `"notes"`, 1) },
		"a patch that is not the block": func(s string) string { return strings.Replace(s, `vivary:context:start`, `vivary:context:begin`, 1) },
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(rp, []byte(edit(orig)), 0o644); err != nil {
				t.Fatal(err)
			}
			before := testws.Hash(t, root)
			if _, err := adopt.PreviewUndo(bg, root); err == nil || !strings.Contains(err.Error(), "the adoption record") {
				t.Fatalf("a forged record: %v", err)
			}
			if testws.Hash(t, root) != before {
				t.Fatal("a refused undo wrote")
			}
		})
	}
	os.WriteFile(rp, []byte(orig), 0o644)
	if _, err := adopt.PreviewUndo(bg, root); err != nil {
		t.Fatalf("the genuine record: %v", err)
	}
}

// A folder swapped for a link to somewhere else while the undo runs cannot
// make it remove or change a byte there: every step goes through folder
// handles held from the root, never through a link.
func TestUndoNeverFollowsASwappedFolder(t *testing.T) {
	for _, at := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			root, _ := adopted(t)
			outside := filepath.Join(t.TempDir(), "outside")
			for _, rel := range []string{"context.md", "workspace.toml", "runtime/adopt-record.json"} {
				b, err := os.ReadFile(filepath.Join(root, ".vivary", rel))
				if err != nil {
					t.Fatal(err)
				}
				testws.Write(t, outside, rel, string(b))
			}
			outsideBefore := testws.Hash(t, outside)
			u, err := adopt.PreviewUndo(bg, root)
			if err != nil {
				t.Fatal(err)
			}
			unlinks := 0
			write.Hook = func(s write.Step, rel string) error {
				if s == write.StepUnlink {
					if unlinks++; unlinks == at {
						if err := os.Rename(filepath.Join(root, ".vivary"), filepath.Join(root, "moved")); err != nil {
							t.Error(err)
						}
						if err := os.Symlink(outside, filepath.Join(root, ".vivary")); err != nil {
							t.Error(err)
						}
					}
				}
				return nil
			}
			_, err = adopt.ApplyUndo(bg, root, u.Hash)
			write.Hook = nil
			if testws.Hash(t, outside) != outsideBefore {
				t.Fatalf("the undo changed the folder behind the link (undo: %v)", err)
			}
		})
	}
}

// A managed block the person changed inside (a line edited, a rule taken
// out, the line endings converted) no longer holds adopt's bytes: the undo
// names the file and keeps it as it is, rather than passing over it as if
// the block were gone.
func TestUndoNamesABlockThePersonChanged(t *testing.T) {
	for name, c := range map[string]struct {
		rel  string
		edit func(string) string
	}{
		"a line of the AGENTS.md block edited": {"AGENTS.md", func(s string) string {
			return strings.Replace(s, "Read `.vivary/context.md`", "Please read `.vivary/context.md`", 1)
		}},
		"AGENTS.md converted to CRLF":              {"AGENTS.md", func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }},
		"the start line of the block removed":      {"AGENTS.md", func(s string) string { return strings.Replace(s, scaffold.AgentsStart+"\n", "", 1) }},
		"a rule taken out of the .gitignore block": {".gitignore", func(s string) string { return strings.Replace(s, "*.vivary-tmp\n", "", 1) }},
	} {
		t.Run(name, func(t *testing.T) {
			root, _ := adopted(t)
			changed := c.edit(read(t, filepath.Join(root, c.rel)))
			testws.Write(t, root, c.rel, changed)
			u := undo(t, root)
			if !slices.ContainsFunc(u.Kept, func(k adopt.UndoKept) bool {
				return k.Path == c.rel && strings.Contains(k.Reason, "changed since")
			}) {
				t.Fatalf("kept %v, want %s named", u.Kept, c.rel)
			}
			if got := read(t, filepath.Join(root, c.rel)); got != changed {
				t.Fatalf("%s was touched: %q", c.rel, got)
			}
		})
	}
}

// While anything the .gitignore block keeps out of Git is still there
// after the undo (the person's private notes, a runtime file adopt did not
// write), the block stays, and the undo says why: cutting it would hand
// those files to the next `git add`. Everything else is undone.
func TestUndoKeepsTheBlockWhileItStillHidesFiles(t *testing.T) {
	for name, rel := range map[string]string{
		"a private note":       ".vivary/private/diary.md",
		"a deeper private one": ".vivary/private/2024/diary.md",
		"a runtime file":       ".vivary/runtime/cache.json",
	} {
		t.Run(name, func(t *testing.T) {
			root := vault(t)
			testws.Write(t, root, ".gitignore", "node_modules/\n")
			testws.Git(t, root, "init", "-q")
			if _, _, err := adopt.Apply(bg, root, adopt.Options{}, preview(t, root, adopt.Options{}).Hash); err != nil {
				t.Fatal(err)
			}
			testws.Write(t, root, rel, "my secret diary\n")
			gitignore := read(t, filepath.Join(root, ".gitignore"))
			u := undo(t, root)
			if len(u.Kept) != 1 || u.Kept[0].Path != ".gitignore" || !strings.Contains(u.Kept[0].Reason, "still holds files") {
				t.Fatalf("kept %v, want .gitignore named", u.Kept)
			}
			if read(t, filepath.Join(root, ".gitignore")) != gitignore {
				t.Fatal("the block that hides the private files was cut")
			}
			if read(t, filepath.Join(root, rel)) != "my secret diary\n" {
				t.Fatal("the private file was touched")
			}
			if status := testws.Git(t, root, "status", "--porcelain", "--untracked-files=all"); strings.Contains(status, ".vivary/") {
				t.Fatalf("after the undo Git sees the hidden files:\n%s", status)
			}
			if _, err := os.Stat(filepath.Join(root, ".vivary/workspace.toml")); !os.IsNotExist(err) {
				t.Fatalf("the rest was not undone: %v", err)
			}
		})
	}
}

// A folder adopt made that the person replaced by a link since (a skills
// folder shared from elsewhere) is not adopt's any more: the undo leaves it
// and what it points to alone, says so, and still succeeds; it never tells
// the person to remove, by hand, a path that goes through the link.
func TestUndoLeavesAFolderReplacedByALink(t *testing.T) {
	root := vault(t)
	opt := adopt.Options{Adapters: []string{"agents"}}
	if _, _, err := adopt.Apply(bg, root, opt, preview(t, root, opt).Hash); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Rename(filepath.Join(root, ".agents"), shared); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, filepath.Join(root, ".agents")); err != nil {
		t.Fatal(err)
	}
	sharedBefore := testws.Hash(t, shared)
	p, err := adopt.PreviewUndo(bg, root)
	if err != nil {
		t.Fatal(err)
	}
	u, err := adopt.ApplyUndo(bg, root, p.Hash)
	if err != nil {
		t.Fatalf("the undo failed over a folder that is a link now: %v", err)
	}
	if testws.Hash(t, shared) != sharedBefore {
		t.Fatal("the undo changed the folder behind the link")
	}
	if !slices.ContainsFunc(u.Kept, func(k adopt.UndoKept) bool { return k.Path == ".agents/skills/vivary/SKILL.md" }) {
		t.Fatalf("kept %v, want the skill behind the link named", u.Kept)
	}
	want := []adopt.UndoKept{{Path: ".agents", Reason: "it, or a folder above it, is now a link or not a plain folder, so the undo does not go through it"}}
	if !slices.Equal(u.Left, want) {
		t.Fatalf("left %v, want %v", u.Left, want)
	}
	if _, err := os.Stat(filepath.Join(root, ".vivary")); !os.IsNotExist(err) {
		t.Fatalf("the rest was not undone: %v", err)
	}
}

// A file adopt wrote that is now a link, a folder or a second name of
// another file is named and kept, in the undo's own words.
func TestUndoKeepsWhatIsNoPlainFile(t *testing.T) {
	root, _ := adopted(t)
	outside := filepath.Join(t.TempDir(), "STATE.md")
	if err := os.Rename(filepath.Join(root, "STATE.md"), outside); err != nil {
		t.Fatal(err)
	}
	for rel, make := range map[string]func(string) error{
		"STATE.md":           func(p string) error { return os.Symlink(outside, p) },
		".vivary/context.md": func(p string) error { os.Remove(p); return os.Mkdir(p, 0o755) },
		".claude/skills/vivary/SKILL.md": func(p string) error {
			return os.Link(p, filepath.Join(root, "second-name.md"))
		},
	} {
		if err := make(filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	before := read(t, outside)
	u := undo(t, root)
	var kept []string
	for _, k := range u.Kept {
		if strings.Contains(k.Reason, "recovery") || !strings.Contains(k.Reason, "so the undo does not touch it") {
			t.Errorf("kept %s: %q", k.Path, k.Reason)
		}
		kept = append(kept, k.Path)
	}
	if want := []string{".claude/skills/vivary/SKILL.md", ".vivary/context.md", "STATE.md"}; !slices.Equal(kept, want) {
		t.Fatalf("kept %q, want %q", kept, want)
	}
	if read(t, outside) != before {
		t.Fatal("the file behind the link changed")
	}
}

// An undo and any other create-vivary write never interleave: while an
// undo runs, a second undo and an adoption refuse; while an adoption runs,
// an undo refuses. The running one finishes as if alone.
func TestUndoRefusesWhileAnotherWriterRuns(t *testing.T) {
	root, before := adopted(t)
	u, err := adopt.PreviewUndo(bg, root)
	if err != nil {
		t.Fatal(err)
	}
	var inner []error
	write.Hook = func(s write.Step, rel string) error {
		if s == write.StepUnlink && inner == nil {
			_, err1 := adopt.ApplyUndo(bg, root, u.Hash)
			_, _, err2 := adopt.Apply(bg, root, adopt.Options{}, "sha256:0")
			inner = []error{err1, err2}
		}
		return nil
	}
	_, err = adopt.ApplyUndo(bg, root, u.Hash)
	write.Hook = nil
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range inner {
		if e == nil || !strings.Contains(e.Error(), "another create-vivary write (an adoption, a recovery or an undo") {
			t.Errorf("a write while the undo ran: %v", e)
		}
	}
	if testws.Hash(t, root) != before {
		t.Fatal("the undo did not finish as if alone")
	}

	// Adopted, STATE.md deleted: a second adoption creates it again.
	root, _ = adopted(t)
	os.Remove(filepath.Join(root, "STATE.md"))
	opt := adopt.Options{Adapters: []string{"agents", "claude"}}
	u, err = adopt.PreviewUndo(bg, root)
	if err != nil {
		t.Fatal(err)
	}
	inner = nil
	write.Hook = func(s write.Step, rel string) error {
		if inner == nil {
			_, err := adopt.ApplyUndo(bg, root, u.Hash)
			inner = []error{err}
		}
		return nil
	}
	p := preview(t, root, opt)
	_, _, err = adopt.Apply(bg, root, opt, p.Hash)
	write.Hook = nil
	if err != nil {
		t.Fatal(err)
	}
	if len(inner) != 1 || inner[0] == nil || !strings.Contains(inner[0].Error(), "another create-vivary write") {
		t.Fatalf("an undo while an adoption ran: %v", inner)
	}
}

// A private note saved while the undo runs, before it reaches .gitignore,
// stops it there: the block is checked again right before it goes, and
// every file is put back.
func TestUndoChecksWhatTheBlockHidesRightBeforeCuttingIt(t *testing.T) {
	root, _ := adopted(t)
	u, err := adopt.PreviewUndo(bg, root)
	if err != nil {
		t.Fatal(err)
	}
	state := testws.Hash(t, root)
	write.Hook = func(s write.Step, rel string) error {
		if s == write.StepUnlink && rel == "STATE.md" {
			testws.Write(t, root, ".vivary/private/diary.md", "my secret diary\n")
		}
		return nil
	}
	_, err = adopt.ApplyUndo(bg, root, u.Hash)
	write.Hook = nil
	if err == nil || !strings.Contains(err.Error(), ".vivary/private/ now holds files the .gitignore block keeps out of Git") ||
		!strings.Contains(err.Error(), "every file was put back") {
		t.Fatalf("ApplyUndo = %v", err)
	}
	os.RemoveAll(filepath.Join(root, ".vivary/private"))
	if testws.Hash(t, root) != state {
		t.Fatal("the stopped undo left the folder changed")
	}
}

// A record that names a path adopt never writes (outside the folder, by a
// link, in another case or a look-alike spelling), or that is no plain
// file within its bound, refuses the undo before anything is touched.
func TestARecordNeverReachesPastWhatAdoptWrites(t *testing.T) {
	withCreate := func(path string) func(t *testing.T, root, rp string) {
		return func(t *testing.T, root, rp string) {
			var r map[string]any
			if err := json.Unmarshal([]byte(read(t, rp)), &r); err != nil {
				t.Fatal(err)
			}
			e := r["adoptions"].([]any)[0].(map[string]any)
			e["actions"] = append(e["actions"].([]any), map[string]any{"path": path, "kind": "create",
				"after_hash": canon.Digest([]byte(scaffold.State)), "before_hash": nil, "inserted_text": nil})
			b, _ := json.Marshal(r)
			testws.Write(t, root, scaffold.RecordPath, string(b))
		}
	}
	for name, forge := range map[string]func(t *testing.T, root, rp string){
		"a path that climbs out":     withCreate("../STATE.md"),
		"an absolute path":           withCreate("/tmp/STATE.md"),
		"another case":               withCreate("state.md"),
		"a look-alike spelling":      withCreate("ＳTATE.md"),
		"a decomposed spelling":      withCreate("notes/Cafe\u0301.md"),
		"a path through a subfolder": withCreate("notes/STATE.md"),
		"a record that is a link": func(t *testing.T, root, rp string) {
			elsewhere := filepath.Join(t.TempDir(), "record.json")
			if err := os.Rename(rp, elsewhere); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, rp); err != nil {
				t.Fatal(err)
			}
		},
		"a record with a second name": func(t *testing.T, root, rp string) {
			if err := os.Link(rp, filepath.Join(root, "copy.json")); err != nil {
				t.Fatal(err)
			}
		},
		"a record past its bound": func(t *testing.T, root, rp string) {
			testws.Write(t, root, scaffold.RecordPath, strings.Replace(read(t, rp), `"schema"`, `"pad": "`+strings.Repeat("x", 300<<10)+`", "schema"`, 1))
		},
	} {
		t.Run(name, func(t *testing.T) {
			root, _ := adopted(t)
			testws.Write(t, root, "notes/STATE.md", scaffold.State)
			forge(t, root, filepath.Join(root, scaffold.RecordPath))
			before := testws.Hash(t, root)
			if _, err := adopt.PreviewUndo(bg, root); err == nil || !strings.Contains(err.Error(), "adoption record") {
				t.Fatalf("PreviewUndo = %v", err)
			}
			if testws.Hash(t, root) != before {
				t.Fatal("a refused undo wrote")
			}
		})
	}
}

// Adopted and undone, a folder is back byte for byte (and mode for mode)
// from every starting point of the two files adopt appends to: missing,
// empty, without a final newline, with CRLF or a lone CR, in Git and out.
func TestUndoRoundTripsEveryStartingPoint(t *testing.T) {
	const missing = "\x00missing"
	for _, c := range []struct {
		git               bool
		gitignore, agents string
	}{
		{false, missing, missing},
		{false, "", ""},
		{false, "", "# Agents"},
		{false, missing, "# Agents\r\n\r\nBe kind.\r\n"},
		{false, missing, "# Agents\r"},
		{true, missing, missing},
		{true, "", "# Agents\n"},
		{true, "build/", "# Agents\n\n"},
		{true, "build/\r\n*.log\r\n", "# Agents\r\n"},
		{true, "build/\n\n\n", "\n"},
	} {
		t.Run(fmt.Sprintf("git=%v gitignore=%q agents=%q", c.git, c.gitignore, c.agents), func(t *testing.T) {
			root := vault(t)
			for rel, text := range map[string]string{".gitignore": c.gitignore, "AGENTS.md": c.agents} {
				if text != missing {
					testws.Write(t, root, rel, text)
				}
			}
			if err := os.Chmod(filepath.Join(root, "Welcome.md"), 0o600); err != nil {
				t.Fatal(err)
			}
			if c.git {
				testws.Git(t, root, "init", "-q")
			}
			before := testws.Hash(t, root)
			opt := adopt.Options{Adapters: []string{"claude"}}
			if _, _, err := adopt.Apply(bg, root, opt, preview(t, root, opt).Hash); err != nil {
				t.Fatal(err)
			}
			if u := undo(t, root); len(u.Kept) != 0 {
				t.Fatalf("kept %v", u.Kept)
			}
			if testws.Hash(t, root) != before {
				t.Fatal("after the undo the folder differs from before the adoption")
			}
		})
	}
}
