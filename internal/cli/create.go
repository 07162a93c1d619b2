package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/vivary-dev/vivary-go/doctor"
	"github.com/vivary-dev/vivary-go/greenfield"
	"github.com/vivary-dev/vivary-go/record"
	"github.com/vivary-dev/vivary-go/scaffold"
)

const createHelp = `create-vivary scaffolds and maintains a thin-v0.3 Vivary workspace.

Usage:
  create-vivary init DIR [--preset P] [--adapter agents|claude]... [--dry-run] [--json]
  create-vivary adopt DIR [--preset P] [--adapter agents|claude]... [--apply HASH] [--json]
  create-vivary adopt DIR --recover [--apply HASH] [--json]
  create-vivary adopt DIR --undo [--apply HASH] [--json]
  create-vivary doctor [--workspace DIR] [--json]
  create-vivary record --workspace DIR --path FOLDER/SLUG.md --source FILE --capsule FILE [--apply HASH] [--json]
  create-vivary --version

Run 'create-vivary COMMAND --help' for the flags of one command, and
'create-vivary --version' (or 'create-vivary COMMAND --version') for the version.

Exit status: 0 done or healthy, 1 problems found (doctor) or conflicts (adopt),
2 usage error or refused (nothing was written).
`

// Create runs the create-vivary command line and returns its exit code.
func Create(args []string, stdout, stderr io.Writer) int {
	return createVivary.main(args, stdout, stderr)
}

var createVivary = &program{
	name: "create-vivary",
	help: createHelp,
	commands: []command{
		{"init", initHelp, runInit},
		{"adopt", adoptHelp, runAdopt},
		{"doctor", doctorHelp, runDoctor},
		{"record", recordHelp, runRecord},
	},
	// The reference's writer refusal: ok false and the message. Like
	// vivary's refusals, nothing was done (doctor's problems are findings,
	// exit 1, not refusals).
	refusal: func(err error) (string, any) {
		return err.Error(), map[string]any{"ok": false, "error": err.Error()}
	},
}

const initHelp = `Usage: create-vivary init DIR [--preset P] [--adapter agents|claude]... [--dry-run] [--json]

Creates the five files of a thin-v0.3 workspace in DIR (new or empty):
.gitignore, .vivary/context.md, .vivary/workspace.toml, AGENTS.md, STATE.md,
and one generated skill file per adapter. DIR and any missing folders above
it are made. No templates, module packs or records. Re-running on exactly
that scaffold is a no-op; after a killed init it writes what is missing.
Doctor runs after writing; on any failure everything init made is removed.
To bring an existing folder under Vivary, use create-vivary adopt.

Flags:
  --preset P          coding (default), second-brain, knowledge-work or writing
  --adapter A         agents (.agents/skills/vivary/SKILL.md) or claude
                      (.claude/skills/vivary/SKILL.md); repeatable
  --dry-run           list the files without writing
  --json              print the result as JSON
  --version           print the version

Exit status: 0 created, already initialized or listed, 2 usage error or
refused (nothing is left written).
`

func runInit(c *call) int {
	preset := c.fs.String("preset", scaffold.DefaultPreset, "")
	var adapters multi
	c.fs.Var(&adapters, "adapter", "")
	dry := c.fs.Bool("dry-run", false, "")
	pos, exit, ok := c.parse()
	if !ok {
		return exit
	}
	if len(pos) != 1 {
		return c.usage("exactly one target directory is required: create-vivary init DIR")
	}
	if !slices.Contains(scaffold.Presets, *preset) {
		return c.usage("unknown preset; choose one of %s", strings.Join(scaffold.Presets, ", "))
	}
	if _, err := scaffold.CheckAdapters(adapters); err != nil {
		return c.usage("%v", err)
	}
	ctx, cancel := signalContext()
	defer cancel()
	ctx, quiet := c.progress(ctx)
	defer quiet()
	res, err := greenfield.Init(ctx, pos[0], greenfield.Options{Preset: *preset, Adapters: adapters, DryRun: *dry})
	quiet()
	if err != nil {
		return c.fail(err)
	}
	stdout := c.stdout
	created := !*dry && !res.AlreadyInitialized
	if *c.asJSON {
		// The reference's keys (storage is always plain files here), then
		// the paths and what was done.
		out := map[string]any{"ok": true, "root": res.Root, "contract": "thin-v0.3", "preset": res.Preset, "adapters": res.Adapters,
			"storage": "file", "files": len(res.Files), "paths": res.Files, "dry_run": *dry, "created": created, "folders_made": res.FoldersMade}
		if res.AlreadyInitialized {
			out["already_initialized"] = true
		}
		_ = writeJSON(stdout, out)
		return ExitOK
	}
	switch {
	case res.AlreadyInitialized:
		fmt.Fprintln(stdout, "create-vivary init: already initialized with exactly the thin-v0.3 scaffold; nothing to do")
		return ExitOK
	case *dry:
		fmt.Fprintln(stdout, "create-vivary init: would create:")
	case len(res.Writes) < len(res.Files):
		fmt.Fprintf(stdout, "create-vivary init: finished an interrupted init; wrote the %d missing of %d files:\n", len(res.Writes), len(res.Files))
	default:
		fmt.Fprintf(stdout, "create-vivary init: created a thin-v0.3 workspace with %d files:\n", len(res.Files))
	}
	for _, p := range res.Writes {
		fmt.Fprintln(stdout, "  "+p)
	}
	if res.FoldersMade > 1 {
		verb := "made"
		if *dry {
			verb = "would make"
		}
		fmt.Fprintf(stdout, "%s the target folder and %d missing folder(s) above it\n", verb, res.FoldersMade-1)
	}
	return ExitOK
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
  --version        print the version

Exit status: 0 healthy, 1 problems found, 2 usage error or a folder that
cannot be inspected (missing, unreadable, or not a Vivary workspace).
`

func runDoctor(c *call) int {
	dir := c.fs.String("workspace", ".", "")
	pos, exit, ok := c.parse()
	if !ok {
		return exit
	}
	if len(pos) > 1 {
		return c.usage("at most one workspace directory: create-vivary doctor [--workspace] DIR")
	}
	if len(pos) == 1 {
		*dir = pos[0]
	}
	ctx, cancel := signalContext()
	defer cancel()
	ctx, quiet := c.progress(ctx)
	defer quiet()
	rep, err := doctor.Run(ctx, *dir)
	quiet()
	if err != nil {
		// A folder Doctor cannot inspect at all, or one that is no
		// workspace: a refusal, exit 2, as vivary's for the same folder.
		return c.fail(err)
	}
	stdout := c.stdout
	if *c.asJSON {
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
			fmt.Fprintf(stdout, "graph: %d nodes from %d documents, %d edges, %d broken\n", rep.Graph.Nodes, rep.Graph.Documents, rep.Graph.Edges, rep.Graph.Broken)
		}
		printOmissionRows(stdout, rep.Omissions)
		if hidesPaths(rep.Omissions) {
			fmt.Fprintln(stdout, hiddenHint)
		}
		for _, c := range rep.Capabilities.AvailableCapabilities {
			if c["id"] == "interop:mcp" {
				status := fmt.Sprint(c["install_status"])
				if v, ok := c["adapter_version"].(string); ok {
					status += ", vivary-mcp " + v
				}
				fmt.Fprintf(stdout, "interop:mcp: %s (conformance %s)\n", status, c["conformance_status"])
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

var recordHelp = fmt.Sprintf(`Usage: create-vivary record --workspace DIR --path FOLDER/SLUG.md --source FILE --capsule FILE [--apply HASH] [--json]

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
  --source FILE    the typed Markdown source (at most %d KiB)
  --capsule FILE   the saved capsule JSON
  --apply HASH     apply the approved plan hash
  --json           print the plan as JSON
  --version        print the version

Exit status: 0 previewed or applied, 2 usage error or refused (nothing
written, or the workspace restored).
`, record.MaxInputBytes>>10)

func runRecord(c *call) int {
	dir := c.fs.String("workspace", ".", "")
	rec := c.fs.String("path", "", "")
	source := c.fs.String("source", "", "")
	capsule := c.fs.String("capsule", "", "")
	apply := c.fs.String("apply", "", "")
	pos, exit, ok := c.parse()
	if !ok {
		return exit
	}
	if len(pos) > 0 {
		return c.usage("unexpected argument; one record per call, named with --path")
	}
	// In the order of the usage line, so the first missing one is named.
	for _, f := range []struct{ name, v, what string }{
		{"--path", *rec, "the record, as FOLDER/SLUG.md"},
		{"--source", *source, "the typed Markdown file to write"},
		{"--capsule", *capsule, "the saved JSON of 'vivary capsule --json'"},
	} {
		if f.v == "" {
			return c.usage("%s is required: %s", f.name, f.what)
		}
	}
	applying := c.set("apply")
	ctx, cancel := signalContext()
	defer cancel()
	req := record.Request{Workspace: *dir, Record: *rec, Source: *source, Capsule: *capsule}
	var plan *record.Plan
	var err error
	if applying {
		plan, _, err = record.Apply(ctx, req, *apply)
	} else {
		plan, err = record.PlanRecord(ctx, req)
	}
	if err != nil {
		return c.fail(err)
	}
	stdout := c.stdout
	if *c.asJSON {
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
