package adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"regexp"
	"syscall"

	"github.com/vivary-dev/vivary-go/internal/version"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// usage is the line a usage error or refused startup prints first.
const usage = "usage: vivary-mcp --workspace ALIAS PATH [--workspace ALIAS PATH]... [--observability off|errors|json] [--check]\n"

const help = `vivary-mcp serves read-only Vivary context to a local MCP client over
standard input and output: exactly four tools (vivary_find, vivary_query,
vivary_check, vivary_capsule) over the workspaces bound here. Tool calls
cannot add or change workspaces. Nothing is ever written.

Usage:
  vivary-mcp --workspace ALIAS PATH [--workspace ALIAS PATH]... [--observability off|errors|json]
  vivary-mcp --workspace ALIAS PATH [--workspace ALIAS PATH]... --check
  vivary-mcp --version

Flags:
  --workspace ALIAS PATH  bind PATH (a workspace folder, best absolute) as ALIAS:
                          1-64 of A-Z a-z 0-9 . _ -, starting with a letter or
                          digit; repeatable, at most 16
  --observability MODE    diagnostics on standard error: off, errors (default)
                          or json
  --check                 do not serve: bind and read each workspace, print one
                          line for each (documents read, what was left out, or
                          the refusal and its fix) and exit; append it to the
                          command your MCP client runs when it does not connect
  --version               print the version
  -h, --help              print this help

Exit status: 0 served until input ended (with --check: every workspace was
read), 2 usage error, refused startup or a broken session (with --check: a
workspace was refused).
`

var flagLike = regexp.MustCompile(`^--?[a-z][a-z-]{0,31}$`)

// testHooks, set only in test builds, adjusts options from the environment.
var testHooks func(*Options)

type row struct{ alias, path string }

type parsed struct {
	rows    []row
	observe string
	version bool
	help    bool
	check   bool
}

func parseArgs(argv []string) (*parsed, error) {
	p := &parsed{observe: ObserveErrors}
	// "vivary-mcp help" is --help, as "vivary help" is.
	if len(argv) == 1 && argv[0] == "help" {
		return &parsed{help: true}, nil
	}
	for i := 0; i < len(argv); i++ {
		switch a := argv[i]; a {
		case "-h", "--help":
			p.help = true
		case "--check":
			p.check = true
		case "--version":
			p.version = true
		case "--workspace":
			if i+2 >= len(argv) {
				return nil, fmt.Errorf("argument --workspace: expected 2 arguments; pass --workspace ALIAS PATH")
			}
			p.rows = append(p.rows, row{argv[i+1], argv[i+2]})
			i += 2
		case "--observability":
			if i+1 >= len(argv) {
				return nil, fmt.Errorf("argument --observability: expected one argument (off, errors or json)")
			}
			v := argv[i+1]
			if v != ObserveOff && v != ObserveErrors && v != ObserveJSON {
				return nil, fmt.Errorf("argument --observability: invalid choice (choose from 'off', 'errors', 'json')")
			}
			p.observe = v
			i++
		default:
			what := fmt.Sprintf("argument %d", i+1)
			if flagLike.MatchString(a) {
				what = a // a mistyped flag, never a path or other input
			}
			return nil, fmt.Errorf("unrecognized arguments: %s; vivary-mcp takes --workspace ALIAS PATH (repeatable), "+
				"--observability off|errors|json, --check, --version and --help", what)
		}
	}
	if !p.help && !p.version && len(p.rows) == 0 {
		return nil, fmt.Errorf("the following arguments are required: --workspace; pass --workspace ALIAS PATH for each workspace")
	}
	return p, nil
}

// errContract is the reference's one startup refusal. It stays the first
// words of every startup error; what follows says which argument was wrong
// and what to pass instead, without repeating the alias or the path.
var errContract = errors.New("workspace or producer contract unavailable")

func refused(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errContract}, a...)...)
}

const aliasGrammar = "an alias is 1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit"

// bindAll validates and anchors every row, or closes what it opened.
func bindAll(ctx context.Context, rows []row) ([]*Binding, error) {
	if len(rows) < 1 || len(rows) > MaxWorkspaces {
		return nil, refused("%d workspaces given; bind one to %d", len(rows), MaxWorkspaces)
	}
	var out []*Binding
	bd := newBinder(true)
	for i, r := range rows {
		b, err := bd.bind(ctx, i+1, r)
		if err != nil {
			for _, b := range out {
				b.Reader.Workspace().Close()
			}
			return nil, refused("%s", err)
		}
		out = append(out, b)
	}
	return out, nil
}

// binder binds the rows of one command line in order, so it can tell a
// repeated alias or directory from the row that had it first.
type binder struct {
	serving bool
	aliases map[string]int
	ids     map[[2]uint64]int
}

func newBinder(serving bool) *binder {
	return &binder{serving: serving, aliases: map[string]int{}, ids: map[[2]uint64]int{}}
}

// bind validates and anchors row n (counted from 1). Its error says which
// argument was wrong and what to pass instead, never the alias or the path.
func (bd *binder) bind(ctx context.Context, n int, r row) (*Binding, error) {
	if !ValidAlias(r.alias) {
		return nil, fmt.Errorf("the alias of --workspace %d is not valid; %s", n, aliasGrammar)
	}
	if first, dup := bd.aliases[r.alias]; dup {
		return nil, fmt.Errorf("--workspace %d repeats the alias of --workspace %d; give each workspace its own alias", n, first)
	}
	b, err := Bind(r.alias, r.path)
	if err != nil {
		return nil, fmt.Errorf("the path of --workspace %d is refused: %s", n, bindProblem(err))
	}
	ws := b.Reader.Workspace()
	if !bd.serving {
		// A check reads once: no change feed to set up.
		b.Reader = produce.NewReader(ws)
	}
	dev, ino := ws.Identity()
	if first, dup := bd.ids[[2]uint64{dev, ino}]; dup {
		ws.Close()
		return nil, fmt.Errorf("--workspace %d names the same directory as --workspace %d; bind each directory once", n, first)
	}
	if err := unadopted(ctx, ws); err != nil {
		ws.Close()
		return nil, fmt.Errorf("the path of --workspace %d is refused: %s", n, bindProblem(err))
	}
	bd.aliases[r.alias], bd.ids[[2]uint64{dev, ino}] = n, n
	return b, nil
}

// unadopted is the refusal for a folder that is no Vivary workspace and
// cannot be read as one (no .vivary/workspace.toml, outside Git), so a
// client's "failed to connect" is not the first a person hears of it; nil
// for every other folder, whose problems the calls report. It asks the
// ignore policy only when the type policy is missing.
func unadopted(ctx context.Context, ws *workspace.Workspace) error {
	if info, err := ws.Lstat(policy.ThinConfigPath); err != nil || info.Exists {
		return nil
	}
	if _, err := policy.IgnoredNames(ctx, ws, []string{policy.ThinConfigPath}); errors.Is(err, policy.ErrNotWorkspace) {
		return err
	}
	return nil
}

// bindProblem is the reason a path could not be bound, never the path.
func bindProblem(err error) string {
	var re *reason.Error
	switch {
	case errors.As(err, &re) && re.Msg != "":
		return re.Msg
	case errors.Is(err, fs.ErrNotExist):
		return "workspace directory does not exist; check the path"
	case errors.Is(err, fs.ErrPermission):
		return "workspace directory cannot be reached (permission denied); give your user search permission on the folders of the path"
	}
	return "workspace path cannot be resolved; pass an existing directory"
}

// Main runs vivary-mcp with the process's standard streams and returns the
// exit code from the table in package reason: 0 served until input ended,
// 2 a usage error, a startup refusal or a broken session.
func Main(argv []string) int {
	p, err := parseArgs(argv)
	if err != nil {
		fmt.Fprint(os.Stderr, usage)
		fmt.Fprintf(os.Stderr, "vivary-mcp: error: %s\n", err)
		return reason.ExitRefused
	}
	if p.help {
		fmt.Fprint(os.Stdout, help)
		return reason.ExitOK
	}
	if p.version {
		fmt.Fprintf(os.Stdout, "vivary-mcp %s\n", version.String())
		return reason.ExitOK
	}
	// On Windows, Ctrl-C and Ctrl-Break arrive as os.Interrupt, a closed
	// console as SIGTERM.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if p.check {
		return checkAll(ctx, p.rows, os.Stdout)
	}
	bindings, err := bindAll(ctx, p.rows)
	if err != nil {
		fmt.Fprint(os.Stderr, usage)
		fmt.Fprintf(os.Stderr, "vivary-mcp: error: %s\n", err)
		return reason.ExitRefused
	}
	defer func() {
		for _, b := range bindings {
			b.Reader.Workspace().Close()
		}
	}()
	in, out, restore, err := claimStdio()
	if err != nil {
		fmt.Fprint(os.Stderr, usage)
		fmt.Fprintf(os.Stderr, "vivary-mcp: error: %s\n", refused("standard input and output could not be claimed"))
		return reason.ExitRefused
	}
	defer restore()
	opts := Options{Diag: NewDiagnostics(os.Stderr, p.observe), Warm: true}
	if testHooks != nil {
		testHooks(&opts)
	}
	// A session that broke (the client's end of the pipe failed) answered
	// nothing more: exit as a refusal. There are no findings here.
	if err := Serve(ctx, bindings, opts, in, out); err != nil && ctx.Err() == nil {
		return reason.ExitRefused
	}
	return reason.ExitOK
}

// Serve runs the MCP session over in/out until in ends.
func Serve(ctx context.Context, bindings []*Binding, opts Options, in io.Reader, out io.Writer) error {
	s := NewServer(bindings, opts)
	s.diag.Emit(Diag{Event: "server_started", Outcome: "known", ElapsedMS: -1, InputBytes: -1, OutputBytes: -1})
	defer s.diag.Emit(Diag{Event: "server_stopped", Outcome: "known", ElapsedMS: -1, InputBytes: -1, OutputBytes: -1})
	// The background work ends with the session, and none starts after it
	// (a call still running at the end of input ends later).
	wctx, endWarm := context.WithCancel(ctx)
	s.startWarm(wctx)
	defer s.stopWarm()
	defer endWarm()
	return s.MCPServer().Run(ctx, &stdioTransport{in: in, out: out, drain: EOFDrain, diag: s.diag})
}
