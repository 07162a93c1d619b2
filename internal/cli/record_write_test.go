package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/cli"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/workspace"
	"github.com/vivary-dev/vivary-go/workspace/write"
)

// run calls one command line in this process.
func run(main func([]string, io.Writer, io.Writer) int, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := main(args, &out, &errb)
	return code, out.String(), errb.String()
}

const changeSource = "---\nproject: context\nstatus: done\nslice: held handles\n---\n# Written through held handles\n\nThe %s text.\n"

// recordSetup makes a fresh workspace ws in dir and returns the record
// arguments (without --apply) for a change whose text names version, and
// their plan hash.
func recordSetup(t *testing.T, dir, ws, version string) ([]string, string) {
	t.Helper()
	if _, err := os.Stat(ws); err != nil {
		if code, _, stderr := run(cli.Create, "init", ws); code != 0 {
			t.Fatalf("init: %s", stderr)
		}
	}
	source := filepath.Join(dir, version+".md")
	if err := os.WriteFile(source, []byte(fmt.Sprintf(changeSource, version)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, capsule, stderr := run(cli.Vivary, "capsule", "--workspace", ws, "--json", "held handles")
	if code != 0 {
		t.Fatalf("capsule: %s", stderr)
	}
	capsuleFile := filepath.Join(dir, version+"-capsule.json")
	if err := os.WriteFile(capsuleFile, []byte(capsule), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"record", "--workspace", ws, "--path", "changes/held.md", "--source", source, "--capsule", capsuleFile}
	code, out, stderr := run(cli.Create, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("preview: %s", stderr)
	}
	var plan struct {
		PlanHash string `json:"plan_hash"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	return args, plan.PlanHash
}

// copyTree copies the plain folders and files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// holding lists the files under root (links are not followed) whose bytes
// contain text.
func holding(t *testing.T, root, text string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(text)) {
				rel, _ := filepath.Rel(root, p)
				out = append(out, rel)
			}
		}
		return nil
	})
	return out
}

// At each step of a record apply and of its rollback, a folder on the way is
// swapped for a link to a folder outside the workspace that has the same
// layout, as an attacker racing the write would. The apply must refuse
// (exit 2, a message that says the write was refused or undone), nothing
// may land outside, and no file in the workspace may be left holding the
// new text; an update's previous text must still be there.
func TestRecordApplyNeverWritesThroughASwappedFolder(t *testing.T) {
	type swapCase struct {
		action     string // create or update
		step       write.Step
		nth        int    // the step's nth occurrence
		folder     string // the folder swapped for a link
		failDoctor bool   // fail the post-write Doctor, so the rollback runs
	}
	var cases []swapCase
	for _, folder := range []string{".vivary", ".vivary/records", ".vivary/records/changes"} {
		for _, step := range []write.Step{write.StepCreate, write.StepWrite, write.StepSync, write.StepRename} {
			cases = append(cases, swapCase{"create", step, 1, folder, false}, swapCase{"update", step, 1, folder, false})
		}
		cases = append(cases,
			swapCase{"update", write.StepUnlink, 1, folder, false},
			swapCase{"create", write.StepUnlink, 1, folder, true},
			swapCase{"create", write.StepRmdir, 1, folder, true},
			swapCase{"create", write.StepRmdir, 2, folder, true},
			swapCase{"update", write.StepRestore, 1, folder, true},
			swapCase{"update", write.StepRename, 2, folder, true},
			swapCase{"update", write.StepUnlink, 2, folder, true})
	}
	cases = append(cases,
		swapCase{"create", write.StepMkdir, 1, ".vivary/records", false},
		swapCase{"create", write.StepMkdir, 2, ".vivary/records", false},
		swapCase{"create", write.StepMkdir, 2, ".vivary/records/changes", false},
		swapCase{"create", write.StepMkdir, 1, ".vivary", false})
	// One workspace per action, with its capsule and plan, put back from a
	// pristine copy for each case (the capsule binds its path too).
	type template struct {
		ws, pristine, hash string
		args               []string
	}
	templates := map[string]template{}
	for _, action := range []string{"create", "update"} {
		dir := t.TempDir()
		ws := filepath.Join(dir, "ws")
		if action == "update" {
			args, hash := recordSetup(t, dir, ws, "first")
			if code, _, stderr := run(cli.Create, append(args, "--apply", hash)...); code != 0 {
				t.Fatalf("first apply: %s", stderr)
			}
		}
		args, hash := recordSetup(t, dir, ws, "second")
		pristine := filepath.Join(dir, "pristine")
		copyTree(t, ws, pristine)
		templates[action] = template{ws, pristine, hash, args}
	}
	refusal := regexp.MustCompile(`^create-vivary record: (record apply refused|record apply failed|Doctor failed after record apply)`)
	defer func() { write.Hook = nil }()
	for _, c := range cases {
		name := fmt.Sprintf("%s/%s#%d/%s", c.action, c.step, c.nth, c.folder)
		if c.failDoctor {
			name += "/rollback"
		}
		t.Run(name, func(t *testing.T) {
			write.Hook = nil
			dir := t.TempDir()
			tpl := templates[c.action]
			ws := tpl.ws
			if err := os.RemoveAll(ws); err != nil {
				t.Fatal(err)
			}
			copyTree(t, tpl.pristine, ws)
			args := append(slices.Clone(tpl.args), "--apply", tpl.hash)
			outside := filepath.Join(dir, "outside")
			for _, d := range []string{"records/changes", "changes"} {
				os.MkdirAll(filepath.Join(outside, d), 0o755)
			}
			outsideHash := testws.Hash(t, outside)
			if c.failDoctor {
				t.Setenv("VIVARY_TEST_FAIL_DOCTOR", "1")
			}
			seen, swapped := 0, false
			write.Hook = func(step write.Step, rel string) error {
				if step != c.step {
					return nil
				}
				if seen++; seen != c.nth {
					return nil
				}
				target := filepath.Join(ws, c.folder)
				if _, err := os.Lstat(target); err == nil {
					if err := os.Rename(target, target+".away"); err != nil {
						return err
					}
				}
				swapped = true
				return os.Symlink(filepath.Join(outside, strings.TrimPrefix(strings.TrimPrefix(c.folder, ".vivary"), "/")), target)
			}
			code, _, stderr := run(cli.Create, args...)
			write.Hook = nil
			if !swapped {
				t.Fatalf("the apply never reached %s #%d (exit %d: %s)", c.step, c.nth, code, stderr)
			}
			if code != cli.ExitUsage || !refusal.MatchString(stderr) {
				t.Fatalf("exit %d, stderr %q: want exit 2 and a refusal", code, stderr)
			}
			if testws.Hash(t, outside) != outsideHash {
				t.Fatal("the apply wrote outside the workspace")
			}
			if got := holding(t, ws, "The second text."); len(got) != 0 {
				t.Fatalf("the refused record is still in the workspace: %v", got)
			}
			if c.action == "update" {
				if got := holding(t, ws, "The first text."); len(got) != 1 {
					t.Fatalf("the previous record is in %v, want exactly one file", got)
				}
			}
			for _, tmp := range holding(t, ws, "") {
				if _, ok := workspace.TempTag(filepath.Base(tmp)); ok {
					t.Errorf("temp file left behind: %s", tmp)
				}
			}
		})
	}
}
