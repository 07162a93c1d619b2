package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vivary-dev/vivary-go/internal/cli"
	"github.com/vivary-dev/vivary-go/internal/faults"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/workspace"
	"github.com/vivary-dev/vivary-go/workspace/write"
)

// killAt runs create-vivary with args as a process of its own (see bin),
// waits for it to report that it reached the step (the nth time), SIGKILLs
// it there and returns the path the step was acting on.
func killAt(t *testing.T, step write.Step, nth string, args ...string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(bin.createVivary, args...)
	cmd.Env = append(os.Environ(), faults.Env+"="+string(step)+"#"+nth)
	cmd.ExtraFiles = []*os.File{w}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// A generous deadline: the line comes as soon as the step is reached; a
	// process that ends first closes the pipe and the read sees EOF.
	r.SetReadDeadline(time.Now().Add(2 * time.Minute))
	line, rerr := bufio.NewReader(r).ReadString('\n')
	if rerr != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("create-vivary never reached %s #%s: %v\n%s", step, nth, rerr, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || cmd.ProcessState.Sys() == nil || !strings.Contains(cmd.ProcessState.String(), "killed") {
		t.Fatalf("create-vivary was not killed: %v (%s)", err, cmd.ProcessState)
	}
	_, rel, _ := strings.Cut(strings.TrimSpace(line), " ")
	return rel
}

// A real SIGKILL just before the rename leaves the fully written
// .record-<n>.vivary-tmp beside the destination and nothing else. Doctor
// reports it, and the next apply of the same approved plan removes it,
// through the same held handles, and writes the record.
func TestRecordSurvivesAKillBeforeTheRename(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	args, hash := recordSetup(t, dir, ws, "killed")
	if rel := killAt(t, write.StepRename, "1", append(args, "--apply", hash)...); rel != ".vivary/records/changes/held.md" {
		t.Fatalf("killed while renaming onto %q", rel)
	}
	left, err := os.ReadDir(filepath.Join(ws, ".vivary/records/changes"))
	if err != nil || len(left) != 1 {
		t.Fatalf("the record folder holds %v, %v; want one temp file", left, err)
	}
	tmp := ".vivary/records/changes/" + left[0].Name()
	if tag, ok := workspace.TempTag(left[0].Name()); !ok || tag != "record" {
		t.Fatalf("the folder holds %q, want a .record-<n>.vivary-tmp", tmp)
	}
	if b, err := os.ReadFile(filepath.Join(ws, tmp)); err != nil || !strings.Contains(string(b), "The killed text.") {
		t.Fatalf("the temp file holds %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".vivary/records/changes/held.md")); !os.IsNotExist(err) {
		t.Fatalf("the record exists after a kill before its rename: %v", err)
	}

	code, out, _ := run(cli.Create, "doctor", "--workspace", ws)
	if code != 0 || !strings.Contains(out, "warning: an interrupted create-vivary record left the temp file "+tmp+"; the next create-vivary record --apply removes it") {
		t.Fatalf("doctor (exit %d) does not report the leftover:\n%s", code, out)
	}

	code, out, stderr := run(cli.Create, append(args, "--apply", hash)...)
	if code != 0 || !strings.Contains(out, "applied one create") {
		t.Fatalf("the next apply (exit %d): %s%s", code, out, stderr)
	}
	if _, err := os.Lstat(filepath.Join(ws, tmp)); !os.IsNotExist(err) {
		t.Fatalf("the next apply left the temp file: %v", err)
	}
	if got := holding(t, ws, "The killed text."); len(got) != 1 || got[0] != ".vivary/records/changes/held.md" {
		t.Fatalf("the record text is in %v", got)
	}
	if code, out, _ := run(cli.Create, "doctor", "--workspace", ws); code != 0 || strings.Contains(out, "warning: an interrupted") {
		t.Fatalf("doctor after the clean apply (exit %d):\n%s", code, out)
	}
}

// A real SIGKILL in the middle of an adoption (after the journal and two
// files are written) leaves a journal that Doctor reports; the previewed
// and approved recovery puts every byte back.
func TestAdoptSurvivesARealKill(t *testing.T) {
	root := filepath.Join(t.TempDir(), "notes")
	testws.Write(t, root, "Welcome.md", "# Welcome\n\nStart here.\n")
	testws.Write(t, root, "AGENTS.md", "# Agents\n\nKeep it small.\n")
	testws.Write(t, root, "ideas/Garden.md", "# Garden\n\nMore sun.\n")
	before := testws.Hash(t, root)
	code, out, stderr := run(cli.Create, "adopt", root, "--json")
	if code != 0 {
		t.Fatalf("preview: %s", stderr)
	}
	var plan struct {
		PlanHash string `json:"plan_hash"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	if rel := killAt(t, write.StepRename, "5", "adopt", root, "--apply", plan.PlanHash); rel == "" {
		t.Fatal("no step reported")
	}
	if _, err := os.Lstat(filepath.Join(root, ".vivary/runtime/adopt-journal.json")); err != nil {
		t.Fatalf("no journal after the kill: %v", err)
	}
	code, out, _ = run(cli.Create, "doctor", "--workspace", root)
	if code != 1 || !strings.Contains(out, "error: unfinished adoption journal exists; run `create-vivary adopt DIR --recover`") {
		t.Fatalf("doctor (exit %d):\n%s", code, out)
	}
	code, out, stderr = run(cli.Create, "adopt", root, "--recover", "--json")
	var rec struct {
		Source string `json:"source"`
		Hash   string `json:"recovery_plan_hash"`
	}
	if err := json.Unmarshal([]byte(out), &rec); code != 0 || err != nil || rec.Source != "journal" {
		t.Fatalf("recovery preview (exit %d): %s%s", code, out, stderr)
	}
	if code, out, stderr := run(cli.Create, "adopt", root, "--recover", "--apply", rec.Hash); code != 0 {
		t.Fatalf("recovery (exit %d): %s%s", code, out, stderr)
	}
	if testws.Hash(t, root) != before {
		t.Fatal("the recovery did not put every byte back")
	}
}
