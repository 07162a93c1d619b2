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

	"github.com/vivary-dev/vivary-go/canon"
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

// usageError is a bad command line; its text is printed with the usage hint.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	_ = usage
	return fs
}

// parse parses flags wherever they stand among the positional arguments and
// returns the positionals; -h/--help prints the help on stdout and returns
// done.
func parse(fs *flag.FlagSet, args []string, help string, stdout io.Writer) (pos []string, done bool, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, help)
				return nil, true, nil
			}
			return nil, false, &usageError{flagError(err)}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, false, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
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

// signalContext is cancelled by SIGINT/SIGTERM, so a running git child dies too.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
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

// refusal is the JSON shape of a typed refusal on the shell.
type refusal struct {
	Status  string      `json:"status"`
	Reason  reason.Code `json:"reason"`
	Message string      `json:"message"`
}

// fail reports err and returns exit 2. In JSON mode the refusal is printed on
// stdout as an object; the message never holds a path.
func fail(prog string, err error, asJSON bool, stdout, stderr io.Writer) int {
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "%s: %s\nRun '%s --help' for its flags and arguments.\n", prog, ue.msg, prog)
		return ExitUsage
	}
	code := reason.Of(err)
	msg := string(code)
	var re *reason.Error
	if errors.As(err, &re) && re.Msg != "" {
		msg = re.Msg
	}
	if asJSON {
		_ = writeJSON(stdout, refusal{Status: code.Status(), Reason: code, Message: msg})
	}
	fmt.Fprintf(stderr, "%s: %s: %s\n", prog, code, msg)
	return ExitUsage
}
