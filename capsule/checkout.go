package capsule

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// known is one observed fact: its value, or why it could not be observed
// (a published reason, the fact's row in the capsule's unknowns).
type known[T any] struct {
	value T
	ok    bool
	why   string
}

func observed[T any](v T) known[T]          { return known[T]{value: v, ok: true} }
func unobserved[T any](why string) known[T] { return known[T]{why: why} }

// checkout is what a fixed set of git reads says of the checkout. Outside
// Git (git not ok) no other fact is observed.
type checkout struct {
	git       known[struct{}]       // is_git_repository
	head      known[string]         // head_revision: the commit HEAD names
	ref       known[string]         // head_ref: HEAD's branch, "" when detached
	status    known[worktreeStatus] // is_dirty and dirty_entries
	remotes   known[[]remote]       // remotes
	upstream  known[struct{}]       // upstream: only its absence is published
	lastFetch known[time.Time]      // last_fetch: when FETCH_HEAD was written
	markers   map[string]bool       // the workspaceMarkers present as regular single-link files
}

// worktreeStatus is what `git status` lists.
type worktreeStatus struct {
	paths  []string // every listed path, in UTF-16 order: bound by the fingerprint, never shown
	public []string // "XY path" of each path safe to show, in git's order
}

// remote is one distinct (name, direction) line of `git remote -v`, its
// URL's userinfo redacted.
type remote struct{ name, url, direction string }

// workspaceMarkers are the files whose presence names a required check.
var workspaceMarkers = []string{"tropo.toml", "package.json", "pyproject.toml", "AGENTS.md", "STRATO.md", "tox.ini", "noxfile.py", "Cargo.toml", "go.mod", "Makefile"}

// gitOut runs one read-only git call in root: its output and exit code, or
// a refusal when git could not run at all (cancelled, killed, missing).
func gitOut(ctx context.Context, root string, args ...string) (string, int, error) {
	out, code, err := policy.RunGit(ctx, root, nil, args...)
	if err != nil {
		if re := (*reason.Error)(nil); errors.As(err, &re) {
			return "", -1, err // cancelled: RunGit's own reason
		}
		return "", -1, failed("git could not be run", err)
	}
	return string(out), code, nil
}

// observeCheckout reads the checkout facts of the workspace root with fixed
// git calls. A root nested inside a larger worktree is refused: its facts
// would be the larger worktree's.
func observeCheckout(ctx context.Context, ws *workspace.Workspace) (*checkout, error) {
	root := ws.Root()
	co := &checkout{markers: map[string]bool{}}
	top, code, err := gitOut(ctx, root, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	if code != 0 {
		co.git = unobserved[struct{}]("not_a_git_repository_or_git_failed")
		return co, nil
	}
	top = strings.TrimSuffix(top, "\n")
	if top != root {
		if real, err := filepath.EvalSymlinks(top); err != nil || real != root {
			return nil, reason.New(reason.ProducerUnavailable, "the capsule root must be the Git worktree root; nested roots are refused")
		}
	}
	co.git = observed(struct{}{})
	// The five reads are independent, so they run at once; status over a
	// large tree is the slow one. Every call runs with --no-optional-locks
	// (RunGit), so none of them writes the index.
	reads := [...][]string{
		{"rev-parse", "--verify", "-q", "HEAD^{commit}"},
		{"symbolic-ref", "-q", "HEAD"},
		{"status", "--porcelain=v1", "-z", "--untracked-files=all"},
		{"remote", "-v"},
		{"rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"},
	}
	var answers [len(reads)]struct {
		out  string
		code int
		err  error
	}
	var wg sync.WaitGroup
	for i, args := range reads {
		wg.Go(func() {
			a := &answers[i]
			a.out, a.code, a.err = gitOut(ctx, root, args...)
		})
	}
	wg.Wait()
	for _, a := range answers {
		if a.err != nil {
			return nil, a.err
		}
	}
	head, sym, status, remotes, upstream := answers[0], answers[1], answers[2], answers[3], answers[4]
	co.head = unobserved[string]("head_unresolvable_possibly_unborn_branch")
	if head.code == 0 {
		co.head = observed(strings.TrimSpace(head.out))
	}
	switch {
	case sym.code == 0 && strings.HasPrefix(sym.out, "refs/heads/"):
		co.ref = observed(strings.TrimSpace(strings.TrimPrefix(sym.out, "refs/heads/")))
	case co.head.ok:
		co.ref = observed("") // detached
	default:
		co.ref = unobserved[string]("head_ref_unresolvable")
	}
	co.status = unobserved[worktreeStatus]("status_unavailable")
	if status.code == 0 {
		co.status = parseStatus(status.out)
	}
	co.remotes = unobserved[[]remote]("remotes_unreadable")
	if remotes.code == 0 {
		co.remotes = observed(parseRemotes(remotes.out))
	}
	co.upstream = unobserved[struct{}]("no_upstream_configured")
	if upstream.code == 0 {
		co.upstream = observed(struct{}{})
	}
	co.lastFetch = lastFetch(ws)
	for _, m := range workspaceMarkers {
		info, err := ws.Lstat(m)
		if err != nil {
			return nil, failed("a workspace marker file could not be described", err)
		}
		co.markers[m] = info.IsRegular() && info.Nlink == 1
	}
	return co, nil
}

// lastFetch is when FETCH_HEAD was last written: unknown when no fetch was
// recorded, or when it cannot be described (the policy already refused a
// .git that is not a plain folder, so this is a folder that cannot be
// read).
func lastFetch(ws *workspace.Workspace) known[time.Time] {
	info, err := ws.Lstat(".git/FETCH_HEAD")
	switch {
	case err != nil:
		return unobserved[time.Time]("fetch_record_unreadable")
	case !info.Exists:
		return unobserved[time.Time]("no_fetch_recorded")
	}
	return observed(time.Unix(0, info.Mtime))
}

// parseStatus reads `status --porcelain=v1 -z`: each entry's state and
// path, a rename's or copy's source skipped. Output of any other shape is
// status_malformed.
func parseStatus(out string) known[worktreeStatus] {
	var st worktreeStatus
	parts := strings.Split(out, "\x00")
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		if p == "" {
			continue
		}
		if len(p) < 4 || p[2] != ' ' {
			return unobserved[worktreeStatus]("status_malformed")
		}
		state, path := strings.TrimSpace(p[:2]), p[3:]
		st.paths = append(st.paths, path)
		if !policy.Sensitive(path) && guard.SafeRelPath(path, limits.MaxPathChars) {
			st.public = append(st.public, state+" "+path)
		}
		if p[0] == 'R' || p[0] == 'C' {
			i++ // the rename source follows
		}
	}
	sort.Slice(st.paths, func(i, j int) bool { return guard.Less(st.paths[i], st.paths[j]) })
	return observed(st)
}

// parseRemotes reads `git remote -v`: one remote per distinct name and
// direction, its URL's userinfo redacted.
func parseRemotes(out string) []remote {
	var rs []remote
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		parts := strings.Fields(line)
		if len(parts) < 3 || seen[parts[0]+parts[2]] {
			continue
		}
		seen[parts[0]+parts[2]] = true
		rs = append(rs, remote{name: parts[0], url: redactUserinfo(parts[1]), direction: strings.Trim(parts[2], "()")})
	}
	return rs
}

func redactUserinfo(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		if at := strings.IndexByte(rest, '@'); at >= 0 && !strings.ContainsRune(rest[:at], '/') {
			return u[:i+3] + "***@" + rest[at+1:]
		}
	}
	return u
}

// unknowns are the capsule's rows for the facts the checkout could not
// establish, in the published order.
func (co *checkout) unknowns() []Unknown {
	type row struct {
		fact string
		ok   bool
		why  string
	}
	rows := []row{{"is_git_repository", co.git.ok, co.git.why}}
	if co.git.ok {
		rows = append(rows,
			row{"head_revision", co.head.ok, co.head.why},
			row{"head_ref", co.ref.ok, co.ref.why},
			row{"is_dirty", co.status.ok, co.status.why},
			row{"dirty_entries", co.status.ok, co.status.why},
			row{"remotes", co.remotes.ok, co.remotes.why},
			row{"upstream", co.upstream.ok, co.upstream.why},
			row{"last_fetch", co.lastFetch.ok, co.lastFetch.why})
	}
	out := []Unknown{}
	for _, r := range rows {
		if !r.ok {
			fact := r.fact
			out = append(out, Unknown{Kind: "workspace_fact", Fact: &fact, Reason: r.why})
		}
	}
	return out
}

// requiredChecks are the checks a later change must pass, named by the
// markers present (Doctor for a full workspace contract, check wherever
// tropo.toml is); outside Git there are none.
func (co *checkout) requiredChecks(checkoutID string) []RequiredCheck {
	out := []RequiredCheck{}
	if !co.git.ok {
		return out
	}
	if co.markers["tropo.toml"] && co.markers["AGENTS.md"] && co.markers["STRATO.md"] {
		out = append(out, RequiredCheck{"vivary-graph-doctor@" + checkoutID})
	}
	if co.markers["tropo.toml"] {
		out = append(out, RequiredCheck{"vivary-graph-check@" + checkoutID})
	}
	return out
}
