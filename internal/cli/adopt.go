package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/vivary-dev/vivary-go/adopt"
	"github.com/vivary-dev/vivary-go/doctor"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/scaffold"
)

const adoptHelp = `Usage: create-vivary adopt DIR [--preset P] [--adapter agents|claude]... [--apply HASH] [--json]
       create-vivary adopt DIR --recover [--apply HASH] [--json]
       create-vivary adopt DIR --undo [--apply HASH] [--json]

Turns an existing folder (notes, a docs tree, a Git checkout) into a
thin-v0.3 workspace. It only creates the missing contract files, appends one
managed block to the end of AGENTS.md and .gitignore, and replaces stale
generated adapters; nothing of yours is moved, deleted or rewritten.

Without --apply it previews: it writes nothing and prints the plan and its
plan_hash. With --apply HASH it recomputes the plan and writes only if the
hash is the same, journaling every step in .vivary/runtime/, then runs
Doctor and restores every file if Doctor fails. The hash binds this folder,
the options, the bytes of every file the plan creates, patches or keeps,
and the type-policy inputs; other notes may change in between. The preview
also checks your notes as Doctor will: an error in one is a conflict.

Outside Git (or inside a larger Git worktree) the .gitignore must be exactly
Vivary's block: a .gitignore with rules of its own is a conflict to fix
first (run git init so Git's rules apply, or remove them).

--recover previews undoing an adoption a crash interrupted (from its
journal or the marker line in .gitignore), with its own hash; --recover
--apply HASH restores every file to its original bytes.

--undo previews taking a finished adoption back, with its own hash: adopt
keeps a record (.vivary/runtime/adopt-record.json) of what it created and
appended, and the undo removes exactly that where it still holds adopt's
bytes; a file you changed since is named and kept. --undo --apply HASH
does it, journaled in the record, and puts every file back if a step fails.

Flags:
  --preset P    coding, second-brain, knowledge-work or writing (default: the
                one workspace.toml declares, else inferred from the files)
  --adapter A   agents or claude: a generated skill file; repeatable
  --apply HASH  apply the approved plan (or recovery) hash
  --recover     preview or apply the recovery of an interrupted adoption
  --undo        preview or apply taking the adoptions of DIR back
  --json        print the result as JSON
  --version     print the version

Exit status: 0 applicable or done, 1 the plan has conflicts, 2 usage error
or refusal.
`

func runAdopt(c *call) int {
	preset := c.fs.String("preset", "", "")
	var adapters multi
	c.fs.Var(&adapters, "adapter", "")
	apply := c.fs.String("apply", "", "")
	recover := c.fs.Bool("recover", false, "")
	undo := c.fs.Bool("undo", false, "")
	pos, exit, ok := c.parse()
	if !ok {
		return exit
	}
	if len(pos) != 1 {
		return c.usage("exactly one target directory is required")
	}
	applying := c.set("apply")
	ctx, cancel := signalContext()
	defer cancel()
	ctx, quiet := c.progress(ctx)
	defer quiet()
	stdout, asJSON := c.stdout, c.asJSON
	var err error
	if *undo {
		if *recover || *preset != "" || len(adapters) > 0 {
			return c.usage("--undo takes back what the recorded adoptions did; omit --recover, --preset and --adapter")
		}
		var u *adopt.Undo
		if applying {
			u, err = adopt.ApplyUndo(ctx, pos[0], *apply)
		} else {
			u, err = adopt.PreviewUndo(ctx, pos[0])
		}
		quiet()
		if err != nil {
			return c.fail(err)
		}
		printUndo(stdout, u, applying, *asJSON)
		return ExitOK
	}
	if *recover {
		if *preset != "" || len(adapters) > 0 {
			return c.usage("a recovery uses the interrupted adoption's own options; omit --preset and --adapter")
		}
		var r *adopt.Recovery
		if applying {
			r, err = adopt.Recover(ctx, pos[0], *apply)
		} else {
			r, err = adopt.PreviewRecovery(ctx, pos[0])
		}
		quiet()
		if err != nil {
			return c.fail(err)
		}
		printRecovery(stdout, r, applying, *asJSON)
		return ExitOK
	}
	if *preset != "" && !slices.Contains(scaffold.Presets, *preset) {
		return c.usage("unknown preset; choose one of %s", strings.Join(scaffold.Presets, ", "))
	}
	var selected []string
	if len(adapters) > 0 {
		if _, err := scaffold.CheckAdapters(adapters); err != nil {
			return c.usage("%v", err)
		}
		selected = adapters
	}
	opt := adopt.Options{Preset: *preset, Adapters: selected}
	var p *adopt.Plan
	var rep *doctor.Report
	if applying {
		p, rep, err = adopt.Apply(ctx, pos[0], opt, *apply)
	} else {
		p, err = adopt.Preview(ctx, pos[0], opt)
	}
	quiet()
	if err != nil {
		return c.fail(err)
	}
	printPlan(stdout, p, rep, applying, *asJSON)
	if !p.Applicable() {
		return ExitFindings
	}
	return ExitOK
}

var ignoreModes = map[policy.Mode]string{
	policy.ModeGit:    "a Git worktree root: the block is appended and Git's rules stay authoritative",
	policy.ModeNested: "inside a larger Git worktree: the .gitignore must be exactly the block, and the enclosing repository's rules apply too",
	policy.ModeThin:   "outside Git: the exact block is the whole ignore policy",
}

// adoptReport is the --json shape of a plan, in this key order.
type adoptReport struct {
	OK             bool             `json:"ok"`
	Mode           string           `json:"mode"`
	Applied        bool             `json:"applied"`
	Contract       string           `json:"contract"`
	Root           string           `json:"root"`
	Preset         string           `json:"preset"`
	PresetReason   string           `json:"preset_reason"`
	Adapters       []string         `json:"adapters"`
	IgnoreMode     policy.Mode      `json:"ignore_mode"`
	Creates        []string         `json:"creates"`
	Patches        []map[string]any `json:"patches"`
	Replacements   []map[string]any `json:"adapter_replacements"`
	Kept           []adopt.Kept     `json:"kept"`
	PolicyInputs   []adopt.Kept     `json:"policy_inputs"`
	Conflicts      []adopt.Conflict `json:"conflicts"`
	Inventory      adopt.Inventory  `json:"content_inventory"`
	NothingToApply bool             `json:"nothing_to_apply"`
	PlanHash       string           `json:"plan_hash"`
	Doctor         *doctor.Report   `json:"doctor"`
}

func printPlan(w io.Writer, p *adopt.Plan, rep *doctor.Report, applied, asJSON bool) {
	if asJSON {
		creates, patches, replacements := []string{}, []map[string]any{}, []map[string]any{}
		for _, a := range p.Actions {
			switch a.Kind {
			case adopt.Create:
				creates = append(creates, a.Path)
			case adopt.Patch:
				patches = append(patches, map[string]any{"path": a.Path, "before_hash": a.BeforeHash(), "anchor": "eof", "inserted_text": a.Inserted})
			case adopt.Replace:
				replacements = append(replacements, map[string]any{"path": a.Path, "before_hash": a.BeforeHash(), "content_hash": a.AfterHash()})
			}
		}
		mode := "dry-run"
		if applied {
			mode = "applied"
		}
		_ = writeJSON(w, adoptReport{OK: p.Applicable(), Mode: mode, Applied: applied, Contract: policy.ThinContract,
			Root: p.Root, Preset: p.Preset, PresetReason: p.PresetReason, Adapters: p.Adapters, IgnoreMode: p.IgnoreMode,
			Creates: creates, Patches: patches, Replacements: replacements, Kept: p.Kept, PolicyInputs: p.PolicyInputs,
			Conflicts: p.Conflicts, Inventory: p.Inventory, NothingToApply: len(p.Actions) == 0, PlanHash: p.Hash, Doctor: rep})
		return
	}
	would := map[string]string{adopt.Create: "would create", adopt.Patch: "would append the Vivary block to", adopt.Replace: "would replace the stale generated adapter"}
	head := "would adopt Vivary onto"
	if applied {
		would = map[string]string{adopt.Create: "created", adopt.Patch: "appended the Vivary block to", adopt.Replace: "replaced the stale generated adapter"}
		head = "adopted Vivary onto"
	}
	fmt.Fprintf(w, "create-vivary adopt: %s %s\n", head, p.Root)
	fmt.Fprintf(w, "preset: %s (%s)\n", p.Preset, p.PresetReason)
	fmt.Fprintf(w, "ignore rules: %s\n", ignoreModes[p.IgnoreMode])
	for _, a := range p.Actions {
		fmt.Fprintf(w, "  %s: %s\n", would[a.Kind], a.Path)
	}
	for _, k := range p.Kept {
		fmt.Fprintf(w, "  exists, kept: %s\n", k.Path)
	}
	for _, c := range p.Conflicts {
		fmt.Fprintf(w, "  conflict: %s: %s\n", c.Path, c.Reason)
	}
	fmt.Fprintf(w, "plan_hash: %s\n", p.Hash)
	switch {
	case applied && rep != nil:
		fmt.Fprintf(w, "doctor: ok (%d node(s) from %d document(s), %d edge(s), %d broken)\n", rep.Graph.Nodes, rep.Graph.Documents, rep.Graph.Edges, rep.Graph.Broken)
		for _, warn := range rep.Warnings {
			fmt.Fprintln(w, "  warning: "+warn)
		}
	case !p.Applicable():
		fmt.Fprintln(w, "fix the conflicts above, then preview again")
	case len(p.Actions) == 0:
		fmt.Fprintln(w, "nothing to apply: this folder is already adopted")
	default:
		fmt.Fprintf(w, "apply with: --apply %s\n", p.Hash)
	}
}

func printRecovery(w io.Writer, r *adopt.Recovery, applied, asJSON bool) {
	if asJSON {
		mode := "recovery-dry-run"
		if applied {
			mode = "recovered"
		}
		var plan any
		if r.PlanHash != "" {
			plan = r.PlanHash
		}
		_ = writeJSON(w, map[string]any{"ok": true, "mode": mode, "recovered": applied, "root": r.Root, "source": r.Source,
			"transaction_plan_hash": plan, "recovery_actions": r.Steps, "recovery_plan_hash": r.Hash})
		return
	}
	if len(r.Steps) == 0 {
		fmt.Fprintf(w, "create-vivary adopt: nothing to recover in %s: no adoption was interrupted here\n", r.Root)
		return
	}
	head := "would recover"
	if applied {
		head = "recovered"
	}
	from := map[string]string{"journal": "from its journal", "marker": "from the marker line in .gitignore", "temps": "(only temp files were left)"}
	fmt.Fprintf(w, "create-vivary adopt: %s an interrupted adoption of %s %s\n", head, r.Root, from[r.Source])
	for _, s := range r.Steps {
		if s.Operation != "no-op" {
			fmt.Fprintf(w, "  %s: %s\n", s.Operation, s.Path)
		}
	}
	fmt.Fprintf(w, "recovery_hash: %s\n", r.Hash)
	if !applied {
		fmt.Fprintf(w, "apply with: --recover --apply %s\n", r.Hash)
	}
}

func printUndo(w io.Writer, u *adopt.Undo, applied, asJSON bool) {
	if asJSON {
		mode := "undo-dry-run"
		if applied {
			mode = "undone"
		}
		left := u.Left
		if left == nil {
			left = []adopt.UndoKept{}
		}
		_ = writeJSON(w, map[string]any{"ok": true, "mode": mode, "undone": applied, "root": u.Root, "adoptions": u.Adoptions,
			"undo_actions": u.Steps, "kept": u.Kept, "made_folders": u.Folders, "temp_files": u.Temps, "folders_left": left, "undo_plan_hash": u.Hash})
		return
	}
	verbs := map[string]string{adopt.UndoRemove: "would remove", adopt.UndoStrip: "would remove the Vivary block from"}
	head := "would undo"
	if applied {
		verbs = map[string]string{adopt.UndoRemove: "removed", adopt.UndoStrip: "removed the Vivary block from"}
		head = "undid"
	}
	noun := "adoption"
	if u.Adoptions > 1 {
		noun = fmt.Sprintf("%d adoptions", u.Adoptions)
	}
	fmt.Fprintf(w, "create-vivary adopt: %s the %s of %s\n", head, noun, u.Root)
	for _, s := range u.Steps {
		fmt.Fprintf(w, "  %s: %s\n", verbs[s.Operation], s.Path)
	}
	for _, t := range u.Temps {
		fmt.Fprintf(w, "  %s the temp file a killed write left: %s\n", strings.TrimSuffix(verbs[adopt.UndoRemove], ":"), t)
	}
	for _, k := range u.Kept {
		fmt.Fprintf(w, "  kept: %s: %s\n", k.Path, k.Reason)
	}
	switch {
	case applied:
		for _, d := range u.Left {
			fmt.Fprintf(w, "  kept the folder %s: %s\n", d.Path, d.Reason)
		}
	case len(u.Folders) > 0:
		fmt.Fprintf(w, "  then the folders adopt made, each if nothing else is in it: %s\n", strings.Join(u.Folders, ", "))
	}
	fmt.Fprintf(w, "undo_hash: %s\n", u.Hash)
	if !applied {
		fmt.Fprintf(w, "apply with: --undo --apply %s\n", u.Hash)
	}
}
