package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vivary-dev/vivary-go/doctor"
	"github.com/vivary-dev/vivary-go/record"
	"github.com/vivary-dev/vivary-go/scaffold"
)

const createHelp = `create-vivary scaffolds and maintains a thin-v0.3 Vivary workspace.

Usage:
  create-vivary init DIR [--preset P] [--dry-run] [--json]
  create-vivary doctor [--workspace DIR] [--json]
  create-vivary record --workspace DIR --path FOLDER/SLUG.md --source FILE --capsule FILE [--apply HASH] [--json]

Run 'create-vivary COMMAND --help' for the flags of one command.

Exit status: 0 done or healthy, 1 refused or problems found, 2 usage error.
`

// Create runs the create-vivary command line and returns its exit code.
func Create(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, createHelp)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, createHelp)
		return ExitOK
	case "init":
		return runInit(args[1:], stdout, stderr)
	case "doctor":
		return runDoctor(args[1:], stdout, stderr)
	case "record":
		return runRecord(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "create-vivary: unknown command %q\nRun 'create-vivary --help' for usage.\n", args[0])
	return ExitUsage
}

// refuse prints a refusal and returns 1.
func refuse(prog string, err error, asJSON bool, stdout, stderr io.Writer) int {
	if asJSON {
		_ = writeJSON(stdout, map[string]any{"ok": false, "error": err.Error()})
	}
	fmt.Fprintf(stderr, "%s: %s\n", prog, err)
	return ExitFindings
}

func usage(prog string, err error, stderr io.Writer) int {
	fmt.Fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", prog, err, prog)
	return ExitUsage
}

const initHelp = `Usage: create-vivary init DIR [--preset P] [--dry-run] [--json]

Creates the five files of a thin-v0.3 workspace in DIR (new or empty):
.gitignore, .vivary/context.md, .vivary/workspace.toml, AGENTS.md, STATE.md.
No templates, module packs or records. Re-running on exactly that scaffold is
a no-op. Doctor runs after writing; on any failure the files are removed.

Flags:
  --preset P   coding (default), second-brain, knowledge-work or writing
  --dry-run    list the files without writing
  --json       print the result as JSON
`

func runInit(args []string, stdout, stderr io.Writer) int {
	const prog = "create-vivary init"
	fs := newFlags("init", initHelp, stderr)
	preset := fs.String("preset", scaffold.DefaultPreset, "")
	dry := fs.Bool("dry-run", false, "")
	asJSON := fs.Bool("json", false, "")
	pos, done, err := parse(fs, args, initHelp, stdout)
	if done {
		return ExitOK
	}
	if err != nil {
		return usage(prog, err, stderr)
	}
	if len(pos) != 1 {
		return usage(prog, errors.New("exactly one target directory is required"), stderr)
	}
	if !slices.Contains(scaffold.Presets, *preset) {
		return usage(prog, fmt.Errorf("unknown preset; choose one of %s", strings.Join(scaffold.Presets, ", ")), stderr)
	}
	target, err := filepath.Abs(pos[0])
	if err != nil {
		return usage(prog, err, stderr)
	}
	files := scaffold.Files(scaffold.ProjectName(target), *preset)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	state, err := scaffoldState(target, files)
	if err != nil {
		return refuse(prog, err, *asJSON, stdout, stderr)
	}
	// The reference's keys that apply here (no adapters are offered, and
	// storage is always plain files), then the paths and what was done.
	result := map[string]any{"ok": true, "root": target, "contract": "thin-v0.3", "preset": *preset, "adapters": []string{},
		"storage": "file", "files": len(files), "dry_run": *dry, "paths": paths, "created": false}
	switch {
	case state == "scaffold":
		result["already_initialized"] = true
		if *asJSON {
			_ = writeJSON(stdout, result)
		} else {
			fmt.Fprintln(stdout, "create-vivary init: already initialized with exactly the thin-v0.3 scaffold; nothing to do")
		}
		return ExitOK
	case *dry:
		if *asJSON {
			_ = writeJSON(stdout, result)
		} else {
			fmt.Fprintln(stdout, "create-vivary init: would create:")
			for _, p := range paths {
				fmt.Fprintln(stdout, "  "+p)
			}
		}
		return ExitOK
	}
	if err := writeScaffold(target, files, state == "absent"); err != nil {
		return refuse(prog, err, *asJSON, stdout, stderr)
	}
	result["created"] = true
	if *asJSON {
		_ = writeJSON(stdout, result)
	} else {
		fmt.Fprintf(stdout, "create-vivary init: created a thin-v0.3 workspace with %d files:\n", len(files))
		for _, p := range paths {
			fmt.Fprintln(stdout, "  "+p)
		}
	}
	return ExitOK
}

// scaffoldState is "absent", "empty", or "scaffold" (exactly the files);
// any other content is an error.
func scaffoldState(target string, files []scaffold.File) (string, error) {
	st, err := os.Lstat(target)
	if errors.Is(err, os.ErrNotExist) {
		return "absent", nil
	}
	if err != nil || !st.IsDir() {
		return "", errors.New("target must be a new or empty directory (it is a file or a link)")
	}
	want := map[string]string{}
	for _, f := range files {
		want[f.Path] = f.Content
	}
	seen := 0
	nonEmpty := false
	err = filepath.WalkDir(target, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(target, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		nonEmpty = true
		if d.IsDir() && rel == ".vivary" {
			return nil
		}
		content, ok := want[rel]
		if !ok || !d.Type().IsRegular() {
			return errNotScaffold
		}
		b, err := os.ReadFile(p)
		if err != nil || string(b) != content {
			return errNotScaffold
		}
		seen++
		return nil
	})
	switch {
	case !nonEmpty:
		return "empty", nil
	case err == nil && seen == len(files):
		return "scaffold", nil
	}
	return "", errors.New("target is not empty; init only creates a new workspace (existing workspaces need no init)")
}

var errNotScaffold = errors.New("not the scaffold")

// writeScaffold creates the files with no-replace, no-follow semantics; on
// any failure, or a failing Doctor, everything it created is removed.
func writeScaffold(target string, files []scaffold.File, createRoot bool) (err error) {
	var made []string // files and directories, in creation order
	defer func() {
		if err != nil {
			for i := len(made) - 1; i >= 0; i-- {
				os.Remove(made[i])
			}
		}
	}()
	if createRoot {
		parent := filepath.Dir(target)
		if st, perr := os.Stat(parent); perr != nil || !st.IsDir() {
			return errors.New("init failed: the parent directory of the target does not exist")
		}
		if err := os.Mkdir(target, 0o755); err != nil {
			return fmt.Errorf("init failed: %v", errors.Unwrap(err))
		}
		made = append(made, target)
	}
	for _, f := range files {
		p := filepath.Join(target, filepath.FromSlash(f.Path))
		if dir := filepath.Dir(p); dir != target {
			if _, serr := os.Lstat(dir); errors.Is(serr, os.ErrNotExist) {
				if err := os.Mkdir(dir, 0o755); err != nil {
					return fmt.Errorf("init failed and rolled back: %v", errors.Unwrap(err))
				}
				made = append(made, dir)
			}
		}
		fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o644)
		if err != nil {
			return fmt.Errorf("init failed and rolled back: %v", errors.Unwrap(err))
		}
		made = append(made, p)
		_, werr := fh.WriteString(f.Content)
		serr := fh.Sync()
		cerr := fh.Close()
		if werr != nil || serr != nil || cerr != nil {
			return errors.New("init failed and rolled back: a file could not be written")
		}
	}
	rep, err := doctor.Run(context.Background(), target)
	if err != nil || !rep.OK {
		msg := "doctor could not run"
		if rep != nil {
			msg = strings.Join(rep.Errors, "; ")
		}
		return fmt.Errorf("Doctor failed after init and the files were removed: %s", msg)
	}
	return nil
}

const doctorHelp = `Usage: create-vivary doctor [--workspace DIR] [--json]

Checks a workspace (the five contract files, the privacy ignore rules, the
type policy and every typed document) and reports capabilities, including
interop:mcp: whether a compatible vivary-mcp is installed, found on PATH,
GOBIN or GOPATH/bin and judged only by its embedded build information (it is
never run). Doctor reads; it never writes.

Flags:
  --workspace DIR  the workspace (default: the current directory)
  --json           print the report as JSON

Exit status: 0 healthy, 1 problems found, 2 usage error.
`

func runDoctor(args []string, stdout, stderr io.Writer) int {
	const prog = "create-vivary doctor"
	fs := newFlags("doctor", doctorHelp, stderr)
	dir := fs.String("workspace", ".", "")
	asJSON := fs.Bool("json", false, "")
	pos, done, err := parse(fs, args, doctorHelp, stdout)
	if done {
		return ExitOK
	}
	if err != nil {
		return usage(prog, err, stderr)
	}
	if len(pos) > 1 {
		return usage(prog, errors.New("at most one workspace directory"), stderr)
	}
	if len(pos) == 1 {
		*dir = pos[0]
	}
	ctx, cancel := signalContext()
	defer cancel()
	rep, err := doctor.Run(ctx, *dir)
	if err != nil {
		return usage(prog, err, stderr)
	}
	if *asJSON {
		_ = writeJSON(stdout, rep)
	} else {
		for _, e := range rep.Errors {
			fmt.Fprintln(stdout, "error: "+e)
		}
		if rep.RestoreGitignore != "" {
			fmt.Fprint(stdout, "the root .gitignore must be exactly:\n"+rep.RestoreGitignore)
		}
		for _, w := range rep.Warnings {
			fmt.Fprintln(stdout, "warning: "+w)
		}
		if rep.Graph != nil {
			fmt.Fprintf(stdout, "graph: %d nodes, %d edges, %d broken\n", rep.Graph.Nodes, rep.Graph.Edges, rep.Graph.Broken)
		}
		for _, c := range rep.Capabilities.AvailableCapabilities {
			if c["id"] == "interop:mcp" {
				fmt.Fprintf(stdout, "interop:mcp: %s (conformance %s)\n", c["install_status"], c["conformance_status"])
			}
		}
		if rep.OK {
			fmt.Fprintln(stdout, "ok")
		}
	}
	if !rep.OK {
		return ExitFindings
	}
	return ExitOK
}

const recordHelp = `Usage: create-vivary record --workspace DIR --path FOLDER/SLUG.md --source FILE --capsule FILE [--apply HASH] [--json]

Writes one typed record, bound to a saved public Task Capsule (vivary_capsule
or 'vivary capsule --json'). Without --apply it only previews the plan: one
create or update of .vivary/records/FOLDER/SLUG.md with before and after
hashes and a plan hash. With --apply HASH it writes only if HASH is the plan
hash now, atomically, reruns Doctor, and restores the workspace byte for byte
if verification fails. FOLDER is modules, changes, decisions, verification
or gates.

Flags:
  --workspace DIR  the workspace (default: the current directory)
  --path REL       the record path, FOLDER/SLUG.md
  --source FILE    the typed Markdown source (at most 256 KiB)
  --capsule FILE   the saved capsule JSON
  --apply HASH     apply the approved plan hash
  --json           print the plan as JSON
`

func runRecord(args []string, stdout, stderr io.Writer) int {
	const prog = "create-vivary record"
	fs := newFlags("record", recordHelp, stderr)
	dir := fs.String("workspace", ".", "")
	rec := fs.String("path", "", "")
	source := fs.String("source", "", "")
	capsule := fs.String("capsule", "", "")
	apply := fs.String("apply", "", "")
	asJSON := fs.Bool("json", false, "")
	pos, done, err := parse(fs, args, recordHelp, stdout)
	if done {
		return ExitOK
	}
	if err != nil {
		return usage(prog, err, stderr)
	}
	if len(pos) > 0 {
		return usage(prog, errors.New("unexpected argument; one record per call, named with --path"), stderr)
	}
	for name, v := range map[string]string{"--path": *rec, "--source": *source, "--capsule": *capsule} {
		if v == "" {
			return usage(prog, fmt.Errorf("%s is required", name), stderr)
		}
	}
	applying := false
	fs.Visit(func(f *flag.Flag) { applying = applying || f.Name == "apply" })
	ctx, cancel := signalContext()
	defer cancel()
	req := record.Request{Workspace: *dir, Record: *rec, Source: *source, Capsule: *capsule}
	var plan *record.Plan
	if applying {
		plan, _, err = record.Apply(ctx, req, *apply)
	} else {
		plan, err = record.PlanRecord(ctx, req)
	}
	if err != nil {
		return refuse(prog, err, *asJSON, stdout, stderr)
	}
	if *asJSON {
		_ = writeJSON(stdout, map[string]any{"ok": true, "applied": applying, "contract": plan.Contract, "action": plan.Action,
			"path": plan.Path, "before_hash": plan.BeforeHash, "after_hash": plan.AfterHash, "capsule": plan.Capsule, "plan_hash": plan.PlanHash})
		return ExitOK
	}
	verb := "would apply"
	if applying {
		verb = "applied"
	}
	before := "absent"
	if plan.BeforeHash != nil {
		before = *plan.BeforeHash
	}
	fmt.Fprintf(stdout, "create-vivary record: %s one %s to %s\n", verb, plan.Action, plan.Path)
	fmt.Fprintf(stdout, "capsule: %s (%s)\n", plan.Capsule.ID, plan.Capsule.Fingerprint)
	fmt.Fprintf(stdout, "before: %s\nafter: %s\nplan_hash: %s\n", before, plan.AfterHash, plan.PlanHash)
	if !applying {
		fmt.Fprintf(stdout, "apply with: --apply %s\n", plan.PlanHash)
	}
	return ExitOK
}
