// Package policy owns privacy admission and the type policy of a workspace.
// Admission decides, before any byte of a candidate is read, which paths may
// be read at all: secret-looking names never, Git-ignored paths never (Git
// itself is asked once the root is exactly a worktree root), and before
// `git init` only the exact generated .gitignore block is accepted. Every
// failure fails closed. This package never writes and never follows a link.
package policy

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Mode says which ignore policy applied.
type Mode string

const (
	ModeGit  Mode = "git"  // the root is exactly a Git worktree root
	ModeThin Mode = "thin" // outside Git, or nested in a larger worktree
)

// Omission is one counted row of excluded paths.
type Omission struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// Admission is the result of admitting candidates.
type Admission struct {
	Mode        Mode
	Allowed     []string // UTF-16 sorted, unique
	Omissions   []Omission
	Fingerprint string
	// Outside are the files that decided a Git-mode admission besides the
	// workspace's own (the user's global Git configs and the excludes file
	// Git uses), as a stat said just before Git read them.
	Outside []Outside
	allowed map[string]bool
}

// Admits reports whether rel was admitted.
func (a *Admission) Admits(rel string) bool { return a.allowed[rel] }

// Options carry facts the caller's walk observed.
type Options struct {
	// LinkedIgnoreFile is set when any .gitignore in the tree is a link:
	// Git would follow it, so the policy refuses.
	LinkedIgnoreFile bool
	// Listed says every candidate was just found, by a listing that follows
	// no link, to be a regular single-link file, so Admit does not stat them
	// again. It changes no decision: Git and the exact block judge the path,
	// and the reads that follow refuse links and changed files themselves.
	Listed bool
}

func unavailable(msg string, cause error) error {
	return reason.Wrap(reason.PrivacyPolicyUnavailable, msg, cause)
}

// gitFailed keeps a cancellation as it is and fails the policy closed on
// any other git failure.
func gitFailed(err error, msg string) error {
	var re *reason.Error
	if errors.As(err, &re) {
		return err
	}
	return unavailable(msg, err)
}

// Admit runs the privacy policy over candidate file paths. Candidates must be
// safe relative paths naming regular single-link files reached without links;
// any other candidate refuses the whole call with path_refused.
func Admit(ctx context.Context, ws *workspace.Workspace, candidates []string, opt Options) (*Admission, error) {
	cands := uniqueSorted(candidates)
	for _, c := range cands {
		if !guard.SafeRelPath(c, 4096) {
			return nil, reason.New(reason.PathRefused, "a candidate path is not a safe relative path")
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, reason.Wrap(reason.ProducerUnavailable, "cancelled", err)
	}
	if !opt.Listed {
		// StatMany walks every component without following a link: a candidate
		// behind a link is missing, a linked candidate is not regular.
		infos, err := ws.StatMany(cands)
		if err != nil {
			return nil, err
		}
		for _, info := range infos {
			if !info.Exists || !info.IsRegular() || info.Nlink != 1 {
				return nil, reason.New(reason.PathRefused, "a candidate path is not a regular single-link file")
			}
		}
	}
	var rest []string
	sensitive := 0
	for _, c := range cands {
		if Sensitive(c) {
			sensitive++
			continue
		}
		rest = append(rest, c)
	}
	mode, excludes, outside, err := modeAndExcludes(ctx, ws)
	if err != nil {
		return nil, err
	}
	var ignored map[string]bool
	if mode == ModeGit {
		if opt.LinkedIgnoreFile {
			return nil, unavailable("a .gitignore in the workspace is a link", nil)
		}
		ignored, err = gitIgnored(ctx, ws.Root(), rest, excludes)
	} else {
		outside = nil
		ignored, err = thinPolicy(ws, rest)
	}
	if err != nil {
		return nil, err
	}
	a := &Admission{Mode: mode, Outside: outside, allowed: map[string]bool{}}
	for _, c := range rest {
		if !ignored[c] {
			a.Allowed = append(a.Allowed, c)
			a.allowed[c] = true
		}
	}
	if a.Allowed == nil {
		a.Allowed = []string{}
	}
	a.Omissions = []Omission{}
	if n := len(rest) - len(a.Allowed); n > 0 {
		a.Omissions = append(a.Omissions, Omission{"privacy_excluded", "git_ignored", n})
	}
	if sensitive > 0 {
		a.Omissions = append(a.Omissions, Omission{"privacy_excluded", "sensitive_name", sensitive})
	}
	om := make([]any, len(a.Omissions))
	for i, o := range a.Omissions {
		om[i] = map[string]any{"kind": o.Kind, "reason": o.Reason, "count": o.Count}
	}
	a.Fingerprint, err = canon.Fingerprint(map[string]any{
		"schema": "vivary.content-privacy-policy/v0", "allowed_paths": a.Allowed, "omissions": om,
	})
	if err != nil {
		return nil, unavailable("privacy fingerprint failed", err)
	}
	return a, nil
}

func uniqueSorted(xs []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool { return guard.Less(out[i], out[j]) })
	return out
}

// Inputs are the workspace paths, besides every walked directory and
// .gitignore file, whose change can change an admission: the policy files,
// and what makes the root a Git worktree and what Git ignores there.
var Inputs = []string{ThinConfigPath, OverlayPath, ".git", ".git/HEAD", ".git/config", ".git/info", ".git/info/exclude"}

// modeAndExcludes runs the two independent git questions at once: whether
// the root is a worktree root, and which excludes file the user's Git uses.
// Outside Git the second answer goes unused; asking it anyway keeps it off
// the critical path of a Git workspace.
func modeAndExcludes(ctx context.Context, ws *workspace.Workspace) (Mode, string, []Outside, error) {
	var excludes string
	var outside []Outside
	done := make(chan struct{})
	go func() {
		defer close(done)
		excludes, outside = userExcludes(ctx, ws.Root())
	}()
	mode, err := detectMode(ctx, ws)
	<-done
	return mode, excludes, outside, err
}

// detectMode asks git whether the root is exactly a worktree root.
func detectMode(ctx context.Context, ws *workspace.Workspace) (Mode, error) {
	out, code, err := RunGit(ctx, ws.Root(), nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", gitFailed(err, "git could not be asked about the workspace")
	}
	if code != 0 {
		return ModeThin, nil // not inside any Git worktree
	}
	if len(out) == 0 || out[len(out)-1] != '\n' || bytes.Count(out, []byte("\n")) != 1 {
		return "", unavailable("git answered with malformed output", nil)
	}
	top := string(out[:len(out)-1])
	if top != ws.Root() {
		if real, err := filepath.EvalSymlinks(top); err != nil || real != ws.Root() {
			return ModeThin, nil // nested inside a larger worktree
		}
	}
	info, err := ws.Lstat(".git")
	if err != nil || !info.IsDir() {
		return "", unavailable("the workspace .git is not a plain directory", err)
	}
	return ModeGit, nil
}

// gitIgnored asks `git check-ignore` which paths Git ignores. Every path gets
// one record (-n); a record with a non-negated pattern is ignored.
func gitIgnored(ctx context.Context, root string, paths []string, excludes string) (map[string]bool, error) {
	ignored := map[string]bool{}
	if len(paths) == 0 {
		return ignored, nil
	}
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	args := []string{}
	if excludes != "" {
		args = append(args, "-c", "core.excludesFile="+excludes)
	}
	args = append(args, "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin")
	out, code, err := RunGit(ctx, root, in.Bytes(), args...)
	if err != nil {
		return nil, gitFailed(err, "git check-ignore did not finish")
	}
	if code != 0 && code != 1 {
		return nil, unavailable("git check-ignore failed with exit "+strconv.Itoa(code), nil)
	}
	fields := bytes.Split(out, []byte{0})
	if len(fields) == 0 || len(fields[len(fields)-1]) != 0 {
		return nil, unavailable("git check-ignore output is malformed", nil)
	}
	fields = fields[:len(fields)-1]
	if len(fields) != 4*len(paths) {
		return nil, unavailable("git check-ignore output is malformed", nil)
	}
	for i, p := range paths {
		rec := fields[4*i : 4*i+4]
		if string(rec[3]) != p {
			return nil, unavailable("git check-ignore output is malformed", nil)
		}
		pat := rec[2]
		if len(pat) > 0 && pat[0] != '!' {
			ignored[p] = true
		}
	}
	return ignored, nil
}

// thinPolicy requires the exact generated .gitignore and applies its rules.
func thinPolicy(ws *workspace.Workspace, paths []string) (map[string]bool, error) {
	data, _, err := ws.ReadFile(".gitignore", int64(len(GitignoreBlockCocoindex)), nil)
	if err != nil {
		return nil, unavailable("outside Git the workspace needs the exact .gitignore block that create-vivary init writes", err)
	}
	var coco bool
	switch string(data) {
	case GitignoreBlock:
	case GitignoreBlockCocoindex:
		coco = true
	default:
		return nil, unavailable("outside Git the workspace needs the exact .gitignore block that create-vivary init writes", nil)
	}
	ignored := map[string]bool{}
	for _, p := range paths {
		if thinIgnored(p, coco) {
			ignored[p] = true
		}
	}
	return ignored, nil
}

// Ignored reports whether the ignore rules keep rel out, even if it does
// not exist yet: Git's rules in a worktree, else the exact block's. It does
// not apply the secret-looking name list (see Sensitive). Any failure to
// decide is an error, and the caller must treat rel as refused.
func Ignored(ctx context.Context, ws *workspace.Workspace, rel string) (bool, error) {
	return AnyIgnored(ctx, ws, []string{rel})
}

// AnyIgnored reports whether the ignore rules keep any of rels out, with one
// git call for all of them. An unsafe path counts as ignored.
func AnyIgnored(ctx context.Context, ws *workspace.Workspace, rels []string) (bool, error) {
	if len(rels) == 0 {
		return false, nil
	}
	for _, rel := range rels {
		if !guard.SafeRelPath(rel, 4096) {
			return true, nil
		}
	}
	mode, excludes, _, err := modeAndExcludes(ctx, ws)
	if err != nil {
		return true, err
	}
	var ignored map[string]bool
	if mode == ModeGit {
		ignored, err = gitIgnored(ctx, ws.Root(), uniqueSorted(rels), excludes)
	} else {
		ignored, err = thinPolicy(ws, rels)
	}
	if err != nil {
		return true, err
	}
	return len(ignored) > 0, nil
}
