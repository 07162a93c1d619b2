package policy

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// gitTimeout bounds one git call.
const gitTimeout = 10 * time.Second

// errGitOutput reports output over its cap.
var errGitOutput = errors.New("git output over its cap")

// cappedBuffer keeps at most max bytes. The buffer is a named field, not
// embedded: an embedded bytes.Buffer would promote ReadFrom, and io.Copy
// (which exec uses for a child's output) would then read past the cap.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		c.over = true
		return 0, errGitOutput
	}
	return c.buf.Write(p)
}

func (c *cappedBuffer) Bytes() []byte { return c.buf.Bytes() }

// gitEnv is the whole environment git sees: no GIT_* from the caller, no
// global or system config, no prompts, no replace objects.
func gitEnv() []string {
	return append([]string{
		"PATH=" + gitPath,
		"HOME=/nonexistent",
		"LC_ALL=C",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_OPTIONAL_LOCKS=0",
	}, osGitEnv()...)
}

// RunGit runs git with a fixed argv prefix in root: core.fsmonitor off,
// hooks pointed nowhere, bounded time and output, its own process group that
// is killed on cancel. It returns stdout and the exit code; err is set only
// when git could not run to an exit. When the caller's context ended, err is
// a producer_unavailable *reason.Error; a timeout, the output cap or a
// missing git are plain errors.
func RunGit(parent context.Context, root string, stdin []byte, args ...string) ([]byte, int, error) {
	out, _, code, err := runGit(parent, root, stdin, args...)
	return out, code, err
}

// runGit is RunGit, also reporting whether git wrote to its standard error:
// a warning, such as an ignore file it could not read and went on without.
func runGit(parent context.Context, root string, stdin []byte, args ...string) (stdout []byte, warned bool, code int, err error) {
	ctx, cancel := context.WithTimeout(parent, gitTimeout)
	defer cancel()
	argv := append([]string{
		"--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
		"-c", "core.quotePath=false", "-C", root,
	}, args...)
	// Named by its fixed path: a bare "git" is looked up on the caller's
	// PATH at once, and where that has none (Windows, often) the command
	// would carry the lookup's error whatever Path is set to afterwards.
	cmd := exec.CommandContext(ctx, lookGit(), argv...)
	cmd.Env = gitEnv()
	cmd.WaitDelay = time.Second
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out := &cappedBuffer{max: limits.MaxGitOutputBytes}
	errb := &cappedBuffer{max: limits.MaxGitStderrBytes}
	cmd.Stdout, cmd.Stderr = out, errb
	err = runTree(cmd)
	if parent.Err() != nil {
		return nil, false, -1, reason.Wrap(reason.ProducerUnavailable, "the call was cancelled", parent.Err())
	}
	if ctx.Err() != nil {
		return nil, false, -1, ctx.Err()
	}
	if out.over {
		return nil, false, -1, errGitOutput
	}
	warned = errb.buf.Len() > 0 || errb.over
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.Bytes(), warned, ee.ExitCode(), nil
	}
	if err != nil && !errb.over {
		return nil, false, -1, err
	}
	return out.Bytes(), warned, 0, nil
}

// outputTree is cmd.Output through runTree.
func outputTree(cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	err := runTree(cmd)
	return out.Bytes(), err
}

// lookGit finds git on the fixed path only.
func lookGit() string {
	for _, d := range filepath.SplitList(gitPath) {
		p := filepath.Join(d, gitExe)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && (st.Mode()&0o111 != 0 || gitExe != "git") {
			return p
		}
	}
	return "/usr/bin/git"
}

// Outside is a file outside the workspace whose change can change an
// admission, with what a stat of it said just before Git read it.
type Outside struct {
	Path string
	Info workspace.Info
}

// userExcludes is the excludes file the user's own Git uses in root (its
// core.excludesFile, the repository's value over the global one, else Git's
// default location), so that what the user's git ignores stays ignored here;
// and the files that decided it: the global configs, stat'd before the
// plain `git config --get` (which runs nothing) reads them, and the excludes
// file itself, present or not. The repository's own config is a workspace
// input (Inputs). A relative excludes file is returned as it is, unstat'd:
// Git reads it from the worktree root, which the caller resolves.
//
// It also reports the user's effective core.ignoreCase: the producers' own
// git reads no global config, yet a global ignoreCase makes the user's Git
// ignore Diary.md for a "diary.md" rule, so it must make ours ignore it too.
func userExcludes(ctx context.Context, root string) (string, []Outside, bool, error) {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", nil, false, nil
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	var inputs []Outside
	stat := func(p string) {
		inputs = append(inputs, Outside{p, workspace.StatPath(p)})
	}
	stat(filepath.Join(home, ".gitconfig"))
	stat(filepath.Join(xdg, "git", "config"))
	env := append([]string{"PATH=" + gitPath, "HOME=" + home, "XDG_CONFIG_HOME=" + xdg, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}, osGitEnv()...)
	excludes, ignoreCase, err := coreConfig(ctx, root, env)
	if err != nil {
		if ctx.Err() != nil {
			err = reason.Wrap(reason.ProducerUnavailable, "the call was cancelled", ctx.Err())
		}
		return "", nil, false, err
	}
	if excludes != "" {
		if filepath.IsAbs(excludes) {
			// Git for Windows prints C:/Users/…: one spelling of a path.
			excludes = filepath.Clean(excludes)
			stat(excludes)
		}
		return excludes, inputs, ignoreCase, nil
	}
	p := filepath.Join(xdg, "git", "ignore")
	stat(p)
	if inputs[len(inputs)-1].Info.Exists {
		return p, inputs, ignoreCase, nil
	}
	return "", inputs, ignoreCase, nil
}

// coreConfig is the user's Git's core.excludesFile (as `git config --path
// --get` gives it, "" when unset or unreadable) and core.ignoreCase (as
// `--type=bool --get` reads it, false when unset or unreadable), asked of
// one git process: a cold call waits for it. A value that one plain listing
// cannot settle the way Git would (a valueless or numeric boolean, a path
// Git cannot expand) is asked the two questions apart, as coreConfigApart.
// A git that did not run to an exit of its own is an error (notRun).
func coreConfig(ctx context.Context, root string, env []string) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	// --type=path expands the excludes file and leaves a boolean's text as
	// it is; the key names come lower-cased, and the last value wins.
	cmd := exec.CommandContext(ctx, lookGit(), "-C", root, "config", "-z", "--type=path", "--get-regexp", `^core\.(excludesfile|ignorecase)$`)
	cmd.Env = env
	out, err := outputTree(cmd)
	if notRun(ctx, err) {
		return "", false, err
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 && len(out) == 0 {
		return "", false, nil // neither is set
	}
	if err != nil {
		return coreConfigApart(ctx, root, env)
	}
	var excludes, fold string
	var foldSet bool
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		key, val, ok := strings.Cut(rec, "\n")
		switch {
		case !ok:
			return coreConfigApart(ctx, root, env) // a valueless key
		case key == "core.excludesfile":
			excludes = val
		case key == "core.ignorecase":
			fold, foldSet = val, true
		default:
			return coreConfigApart(ctx, root, env)
		}
	}
	if !foldSet {
		return excludes, false, nil
	}
	switch strings.ToLower(fold) {
	case "true", "yes", "on", "1":
		return excludes, true, nil
	case "false", "no", "off", "0", "":
		return excludes, false, nil
	}
	return coreConfigApart(ctx, root, env)
}

// askedApart runs when coreConfigApart does; only tests set it.
var askedApart func()

// coreConfigApart asks coreConfig's two questions in two git processes,
// each read by Git's own typing.
func coreConfigApart(ctx context.Context, root string, env []string) (string, bool, error) {
	if askedApart != nil {
		askedApart()
	}
	cmd := exec.CommandContext(ctx, lookGit(), "-C", root, "config", "--path", "--get", "core.excludesFile")
	cmd.Env = env
	fold := exec.CommandContext(ctx, lookGit(), "-C", root, "config", "--type=bool", "--get", "core.ignoreCase")
	fold.Env = env
	out, err := outputTree(fold)
	if notRun(ctx, err) {
		return "", false, err
	}
	ignoreCase := err == nil && string(out) == "true\n"
	out, err = outputTree(cmd)
	if notRun(ctx, err) {
		return "", false, err
	}
	var excludes string
	if err == nil {
		excludes = strings.TrimSuffix(string(out), "\n")
	}
	return excludes, ignoreCase, nil
}

// notRun reports a git that did not run to an exit of its own: it could
// not start, or was ended (its time ran out, the call was cancelled). Its
// silence says nothing of the user's config, so it must not read as
// "unset": that would drop the user's excludes file, and serve what their
// own Git ignores.
func notRun(ctx context.Context, err error) bool {
	if err == nil {
		return false
	}
	var ee *exec.ExitError
	return ctx.Err() != nil || !errors.As(err, &ee) || ee.ExitCode() < 0
}
