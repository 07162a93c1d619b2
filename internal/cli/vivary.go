package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

const vivaryHelp = `vivary reads a Vivary Markdown workspace and prints bounded, privacy-filtered
context. It never writes to the workspace.

Usage:
  vivary check   --workspace DIR [--path P]... [--strict] [--show-hidden] [--json]
  vivary query   --workspace DIR [flags] TEXT
  vivary find    --workspace DIR [--limit N] [--budget N] [--json] QUESTION
  vivary capsule --workspace DIR [--max-claims N] [--json] QUESTION
  vivary --version

Run 'vivary COMMAND --help' for the flags of one command, and 'vivary --version'
(or 'vivary COMMAND --version') for the version.

Exit status: 0 clean or answered, 1 findings (check), 2 usage error or refusal.
`

// Vivary runs the vivary command line and returns its exit code.
func Vivary(args []string, stdout, stderr io.Writer) int { return vivary.main(args, stdout, stderr) }

var vivary = &program{
	name: "vivary",
	help: vivaryHelp,
	commands: []command{
		{"check", checkHelp, runCheck},
		{"query", queryHelp, runQuery},
		{"find", findHelp, runFind},
		{"capsule", capsuleHelp, runCapsule},
	},
	// The reference's typed refusal: status, reason code and message.
	refusal: func(err error) (string, any) {
		code := reason.Of(err)
		msg := string(code)
		var re *reason.Error
		if errors.As(err, &re) && re.Msg != "" {
			msg = re.Msg
		}
		return string(code) + ": " + msg, refusal{Status: code.Status(), Reason: code, Message: msg}
	},
}

// refusal is the JSON shape of a typed refusal on the shell.
type refusal struct {
	Status  string      `json:"status"`
	Reason  reason.Code `json:"reason"`
	Message string      `json:"message"`
}

var checkHelp = fmt.Sprintf(`Usage: vivary check --workspace DIR [--path P]... [--strict] [--show-hidden] [--json]

Validates the typed Markdown documents of the workspace without changing them.

Flags:
  --workspace DIR  the workspace root (required)
  --path P         check only P and what is beneath it; repeatable, at most %d
  --strict         fail on warnings too (default: the workspace policy's strict)
  --show-hidden    also list every path left out, with the rule that hid it
                   (with --path, those at, under or above each P, and a P that
                   is itself hidden is named with its rule); for you at the
                   terminal only: it names ignored and secret-looking paths,
                   never a credential's value, and no agent can ask for it
  --json           print vivary.check-result/v0 JSON (with --show-hidden, and
                   a "hidden" list)
  --version        print the version

Exit status: 0 clean, 1 findings, 2 usage error or refusal.
`, limits.MaxCheckPaths)

// workspaceFlag defines vivary's --workspace, which has no default: a
// read names the workspace it reads.
func workspaceFlag(c *call) *string { return c.fs.String("workspace", "", "") }

func bind(dir string) (*workspace.Workspace, error) {
	if dir == "" {
		return nil, usageError("--workspace DIR is required: pass the workspace folder")
	}
	return workspace.Bind(dir)
}

func runCheck(c *call) int {
	dir := workspaceFlag(c)
	var paths multi
	c.fs.Var(&paths, "path", "")
	strict := c.fs.Bool("strict", false, "")
	showHidden := c.fs.Bool("show-hidden", false, "")
	pos, exit, ok := c.parse()
	if !ok {
		return exit
	}
	if len(pos) > 0 {
		return c.usage("unexpected argument; pass paths with --path")
	}
	ws, err := bind(*dir)
	if err != nil {
		return c.fail(err)
	}
	defer ws.Close()
	ctx, cancel := signalContext()
	defer cancel()
	ctx, quiet := c.progress(ctx)
	defer quiet()
	a := produce.CheckArgs{Paths: paths, Spelling: produce.Flags}
	if *strict {
		a.Strict = strict
	}
	check := produce.Check
	if *showHidden {
		check = produce.CheckShowingHidden
	}
	res, err := check(ctx, ws, a)
	quiet()
	if err != nil {
		if *showHidden && !*c.asJSON && reason.Of(err) == reason.PathRefused {
			// The owner asked what is hidden: say which --path is, and why.
			explainRefusedPaths(ctx, c.stdout, ws, paths)
		}
		return c.fail(err)
	}
	stdout := c.stdout
	switch {
	case *c.asJSON && *showHidden:
		// The check result as published, and the owner's own list beside it.
		out := struct {
			*produce.CheckResult
			Hidden []hiddenPath `json:"hidden"`
		}{res, hiddenRows(res.Hidden, paths)}
		if err := writeJSON(stdout, out); err != nil {
			return c.fail(err)
		}
	case *c.asJSON:
		if err := writeJSON(stdout, res); err != nil {
			return c.fail(err)
		}
	default:
		for _, f := range res.Findings {
			fmt.Fprintf(stdout, "%s:%d: %s %s %s\n", f.Path, f.Line, f.Level, f.Code, f.Message)
		}
		fmt.Fprintf(stdout, "checked %d documents: %d clean, %d errors, %d warnings", res.Checked, res.Clean, res.Errors, res.Warnings)
		if !res.Complete {
			fmt.Fprint(stdout, " (incomplete)")
		}
		fmt.Fprintln(stdout)
		// Say what made it incomplete with names the user gave or the
		// policy admitted, never an ignored or secret-looking one.
		for _, p := range res.Unselected {
			fmt.Fprintf(stdout, "no document at or under --path %s; check the spelling (paths are relative to the workspace root)\n", p)
		}
		for _, p := range res.Unreadable {
			fmt.Fprintf(stdout, "could not read %s (unreadable, or changed while it was read); check its permissions and run again\n", p)
		}
		for _, d := range res.UnreadableFolders {
			fmt.Fprintf(stdout, "could not open the folder %s/ (permission denied), so nothing in it was read; give your user read and search permission on it to include it\n", d)
		}
		printOmissionRows(stdout, res.Omissions)
		if !*showHidden && hidesPaths(res.Omissions) {
			fmt.Fprintln(stdout, hiddenHint)
		}
		if *showHidden {
			printHidden(stdout, hiddenRows(res.Hidden, paths))
		}
	}
	if res.Errors > 0 || (res.Strict && res.Warnings > 0) {
		return ExitFindings
	}
	return ExitOK
}
