// Package cli holds the shell front ends of vivary and create-vivary.
// Commands parse flags, call one library (a read producer, doctor, or one of
// the writers: greenfield for init, record) and map its result or refusal to
// output and an exit code. This package never writes to a workspace itself;
// every write lives in those libraries.
package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/internal/version"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/reason"
)

// Exit codes: the one table of package reason, for all three binaries. A
// usage error and a refusal share ExitUsage: nothing was answered.
const (
	ExitOK       = reason.ExitOK
	ExitFindings = reason.ExitFindings
	ExitUsage    = reason.ExitRefused
)

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// errUsage is the Kind of a refusal of the command line itself, printed
// with the hint to --help.
var errUsage = errors.New("usage error")

// usageError refuses a bad command line.
func usageError(msg string) error { return &reason.Refusal{Msg: msg, Kind: errUsage} }

// program is one binary's command line: vivary or create-vivary.
type program struct {
	name     string
	help     string
	commands []command // in the order the help lists them
	// refusal is how this program words a refusal: the line on stderr after
	// the command's name, and the JSON object printed on stdout with --json.
	refusal func(err error) (line string, asJSON any)
}

// command is one subcommand; run starts with c.parse.
type command struct {
	name string
	help string
	run  func(c *call) int
}

// main is the one top-level dispatcher: help, version, or a command.
func (p *program) main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, p.help)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, p.help)
		return ExitOK
	case "--version":
		fmt.Fprintf(stdout, "%s %s\n", p.name, version.String())
		return ExitOK
	}
	for _, cmd := range p.commands {
		if cmd.name == args[0] {
			fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.Usage = func() {}
			c := &call{p: p, cmd: cmd, prog: p.name + " " + cmd.name, args: args[1:], fs: fs, stdout: stdout, stderr: stderr}
			c.asJSON = fs.Bool("json", false, "")
			c.version = fs.Bool("version", false, "")
			return cmd.run(c)
		}
	}
	names := make([]string, len(p.commands))
	for i, c := range p.commands {
		names[i] = c.name
	}
	list := strings.Join(names, ", ")
	if i := strings.LastIndex(list, ", "); i >= 0 {
		list = list[:i] + " and " + list[i+2:]
	}
	fmt.Fprintf(stderr, "%s: unknown command %q; the commands are %s\nRun '%s --help' for how to use them.\n", p.name, args[0], list, p.name)
	return ExitUsage
}

// call is one run of a command: its flags (--json and --version are every
// command's) and where it prints.
type call struct {
	p              *program
	cmd            command
	prog           string // "vivary check", the prefix of every message
	args           []string
	fs             *flag.FlagSet
	asJSON         *bool
	version        *bool
	stdout, stderr io.Writer
}

// parse is every command's preamble, after it has defined its own flags. It
// reads flags wherever they stand among the positional arguments and returns
// the positionals; when ok is false the command is over (help or version
// printed, or a usage error reported) and exit is its code.
func (c *call) parse() (pos []string, exit int, ok bool) {
	args := c.args
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(c.stdout, c.cmd.help)
				return nil, ExitOK, false
			}
			return nil, c.fail(usageError(flagError(err))), false
		}
		args = c.fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if *c.version {
		fmt.Fprintf(c.stdout, "%s %s\n", c.p.name, version.String())
		return nil, ExitOK, false
	}
	return pos, 0, true
}

// set reports whether the flag was given (an empty --apply is still one).
func (c *call) set(name string) bool {
	given := false
	c.fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// usage reports a bad command line.
func (c *call) usage(format string, a ...any) int {
	return c.fail(usageError(fmt.Sprintf(format, a...)))
}

// fail is the one refusal printer: a usage error with the hint to --help, or
// a refusal in the program's words (on stdout too, as JSON, with --json).
// Nothing was done either way: exit 2. No message holds a path or a value
// from the command line.
func (c *call) fail(err error) int {
	if errors.Is(err, errUsage) {
		fmt.Fprintf(c.stderr, "%s: %s\nRun '%s --help' for its flags and arguments.\n", c.prog, err, c.prog)
		return ExitUsage
	}
	line, body := c.p.refusal(err)
	if *c.asJSON {
		_ = writeJSON(c.stdout, body)
	}
	fmt.Fprintf(c.stderr, "%s: %s\n", c.prog, line)
	return ExitUsage
}

// flagRanges says what each numeric flag takes.
var flagRanges = map[string]string{
	"limit":         fmt.Sprintf("a whole number from 1 to %d", limits.MaxResults),
	"snippet-chars": fmt.Sprintf("a whole number from 0 to %d", limits.MaxSnippetChars),
	"budget":        fmt.Sprintf("a whole number from %d to %d", limits.MinFindBudget, limits.MaxFindBudget),
	"max-claims":    fmt.Sprintf("a whole number from 0 to %d", limits.MaxClaims),
}

var (
	badValue   = regexp.MustCompile(`^invalid (?:boolean )?value ".*" for (?:flag )?-([a-z-]+): `)
	needsValue = regexp.MustCompile(`^flag needs an argument: -([a-z-]+)$`)
	undefined  = regexp.MustCompile(`^flag provided but not defined: -(-?[a-z][a-z-]{0,31})$`)
)

// flagError says which flag was wrong and what it takes, never the value
// given: a command line may hold anything, a secret too.
func flagError(err error) string {
	msg := err.Error()
	if m := badValue.FindStringSubmatch(msg); m != nil {
		if r, ok := flagRanges[m[1]]; ok {
			return fmt.Sprintf("--%s takes %s", m[1], r)
		}
		return fmt.Sprintf("--%s was given a value it does not take", m[1])
	}
	if m := needsValue.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s needs a value", m[1])
	}
	if m := undefined.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("unknown flag -%s", m[1])
	}
	if strings.HasPrefix(msg, "flag provided but not defined") {
		return "unknown flag"
	}
	return "the flags could not be read"
}

// signalContext is cancelled by SIGINT or SIGTERM, so a running git child
// dies too and a writer rolls back instead of being killed halfway. On
// Windows the Go runtime delivers Ctrl-C and Ctrl-Break as os.Interrupt and
// closing the console, logoff and shutdown as SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// writeJSON prints v as indented JSON with the Python-compact escaping rules.
func writeJSON(w io.Writer, v any) error {
	b, err := canon.Encode(v, canon.Options{Order: canon.Unsorted})
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}
