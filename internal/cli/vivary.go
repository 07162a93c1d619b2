package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/vivary-dev/vivary-go/internal/version"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/workspace"
)

const vivaryHelp = `vivary reads a Vivary Markdown workspace and prints bounded, privacy-filtered
context. It never writes to the workspace.

Usage:
  vivary check   --workspace DIR [--path P]... [--strict] [--json]
  vivary query   --workspace DIR [flags] TEXT
  vivary find    --workspace DIR [--limit N] [--budget N] [--json] QUESTION
  vivary capsule --workspace DIR [--max-claims N] [--json] QUESTION
  vivary --version

Run 'vivary COMMAND --help' for the flags of one command.

Exit status: 0 clean or answered, 1 findings (check), 2 usage error or refusal.
`

// Vivary runs the vivary command line and returns its exit code.
func Vivary(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, vivaryHelp)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, vivaryHelp)
		return ExitOK
	case "--version":
		fmt.Fprintf(stdout, "vivary %s\n", version.String())
		return ExitOK
	case "check":
		return runCheck(args[1:], stdout, stderr)
	}
	for _, c := range extraCommands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	return unknownCommand("vivary", args[0], append([]command{{"check", runCheck}}, extraCommands...), stderr)
}

// unknownCommand names the commands there are.
func unknownCommand(prog, name string, cmds []command, stderr io.Writer) int {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	list := strings.Join(names, ", ")
	if i := strings.LastIndex(list, ", "); i >= 0 {
		list = list[:i] + " and " + list[i+2:]
	}
	fmt.Fprintf(stderr, "%s: unknown command %q; the commands are %s\nRun '%s --help' for how to use them.\n", prog, name, list, prog)
	return ExitUsage
}

type command struct {
	name string
	run  func(args []string, stdout, stderr io.Writer) int
}

// extraCommands are the producers registered beside check.
var extraCommands []command

const checkHelp = `Usage: vivary check --workspace DIR [--path P]... [--strict] [--json]

Validates the typed Markdown documents of the workspace without changing them.

Flags:
  --workspace DIR  the workspace root (required)
  --path P         check only P and what is beneath it; repeatable, at most 200
  --strict         fail on warnings too (default: the workspace policy's strict)
  --json           print vivary.check-result/v0 JSON

Exit status: 0 clean, 1 findings, 2 usage error or refusal.
`

func bindFlag(fs interface {
	StringVar(*string, string, string, string)
}) *string {
	var dir string
	fs.StringVar(&dir, "workspace", "", "workspace root")
	return &dir
}

func bind(dir string) (*workspace.Workspace, error) {
	if dir == "" {
		return nil, &usageError{"--workspace DIR is required: pass the workspace folder"}
	}
	return workspace.Bind(dir)
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("check", checkHelp, stderr)
	dir := bindFlag(fs)
	var paths multi
	fs.Var(&paths, "path", "")
	strict := fs.Bool("strict", false, "")
	asJSON := fs.Bool("json", false, "")
	pos, done, err := parse(fs, args, checkHelp, stdout)
	if done || err != nil {
		if err != nil {
			return fail("vivary check", err, false, stdout, stderr)
		}
		return ExitOK
	}
	if len(pos) > 0 {
		return fail("vivary check", &usageError{"unexpected argument; pass paths with --path"}, false, stdout, stderr)
	}
	ws, err := bind(*dir)
	if err != nil {
		return fail("vivary check", err, *asJSON, stdout, stderr)
	}
	defer ws.Close()
	ctx, cancel := signalContext()
	defer cancel()
	a := produce.CheckArgs{Paths: paths}
	if *strict {
		a.Strict = strict
	}
	res, err := produce.Check(ctx, ws, a)
	if err != nil {
		return fail("vivary check", err, *asJSON, stdout, stderr)
	}
	if *asJSON {
		if err := writeJSON(stdout, res); err != nil {
			return fail("vivary check", err, false, stdout, stderr)
		}
	} else {
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
		printOmissionRows(stdout, res.Omissions)
	}
	if res.Errors > 0 || (res.Strict && res.Warnings > 0) {
		return ExitFindings
	}
	return ExitOK
}
