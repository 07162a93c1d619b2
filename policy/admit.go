// Package policy owns privacy admission and the type policy of a workspace.
// Admission decides, before any byte of a candidate is read, which paths may
// be read at all: secret-looking names never, Git-ignored paths never (Git
// itself is asked whenever the root lies in a worktree, from that
// worktree's root), and outside Git only exact copies of the generated
// .gitignore block are accepted. Every failure fails closed. This package
// never writes and never follows a link.
package policy

import (
	"context"
	"errors"
	"io/fs"
	"sort"
	"strings"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
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
	// The candidates kept out, in path order, for the owner's own view
	// (Excluded).
	ignored, sensitive []string
}

// Admits reports whether rel was admitted.
func (a *Admission) Admits(rel string) bool { return a.allowed[rel] }

// Excluded lists the candidates the ignore rules kept out and those with
// a secret-looking name or folder, in path order: the paths behind the
// privacy_excluded rows, for the owner at the terminal only.
func (a *Admission) Excluded() (ignored, sensitive []string) { return a.ignored, a.sensitive }

// Options carry facts the caller's walk observed.
type Options struct {
	// IgnoreFiles are the paths of every entry named .gitignore the walk
	// met, of any type. In a worktree a linked one refuses (Git skips it,
	// so its rules would silently not apply); outside Git each nested one
	// must be an exact copy of the generated block.
	IgnoreFiles []string
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
	return admit(ctx, ws, nil, candidates, opt)
}

// admit is Admit with the ignorer a session already detected, or a fresh
// one when ig is nil.
func admit(ctx context.Context, ws *workspace.Workspace, ig *ignorer, candidates []string, opt Options) (*Admission, error) {
	cands := uniqueSorted(candidates)
	for i, c := range cands {
		if i%1024 == 1023 && ctx.Err() != nil {
			return nil, reason.Wrap(reason.ProducerUnavailable, "cancelled", ctx.Err())
		}
		if why := guard.PathFault(c, 4096); why != "" {
			return nil, reason.New(reason.PathRefused, "a candidate path is not a safe relative path ("+why+")")
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
	if err := ctx.Err(); err != nil {
		return nil, reason.Wrap(reason.ProducerUnavailable, "cancelled", err)
	}
	var rest, sensitive []string
	// Sorted candidates come folder by folder: a folder's verdict is
	// reached once for all its files, and each file's own name is read.
	lastDir, dirSensitive := "", false
	for i, c := range cands {
		if i%1024 == 1023 && ctx.Err() != nil {
			return nil, reason.Wrap(reason.ProducerUnavailable, "cancelled", ctx.Err())
		}
		dir, name := "", c
		if i := strings.LastIndexByte(c, '/'); i >= 0 {
			dir, name = c[:i], c[i+1:]
		}
		if dir != lastDir {
			lastDir, dirSensitive = dir, dir != "" && Sensitive(dir)
		}
		if dirSensitive || SensitiveName(name) {
			sensitive = append(sensitive, c)
			continue
		}
		rest = append(rest, c)
	}
	var err error
	if ig == nil {
		ig, err = newIgnorer(ctx, ws, opt.IgnoreFiles)
	} else {
		err = ig.addIgnoreFiles(opt.IgnoreFiles)
	}
	if err != nil {
		return nil, err
	}
	ignored, err := ig.ignored(ctx, rest)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, reason.Wrap(reason.ProducerUnavailable, "cancelled", err)
	}
	a := &Admission{Mode: ig.mode, Outside: ig.site.outside, allowed: map[string]bool{}, sensitive: sensitive}
	for _, c := range rest {
		if ignored[c] {
			a.ignored = append(a.ignored, c)
		} else {
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
	if len(sensitive) > 0 {
		a.Omissions = append(a.Omissions, Omission{"privacy_excluded", "sensitive_name", len(sensitive)})
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

// Ignored reports whether the ignore rules keep the file rel out, even if
// it does not exist yet: Git's rules in a worktree, else the exact block's.
// It does not apply the secret-looking name list (see Sensitive). Any
// failure to decide is an error, and the caller must treat rel as refused.
func Ignored(ctx context.Context, ws *workspace.Workspace, rel string) (bool, error) {
	if !guard.SafeRelPath(rel, 4096) {
		return true, nil
	}
	ig, err := newIgnorer(ctx, ws, nil)
	if err != nil {
		return true, err
	}
	ignored, err := ig.ignored(ctx, []string{rel})
	if err != nil {
		return true, err
	}
	return ignored[rel], nil
}

// IgnoredNames maps each of rels the ignore rules keep out, as a file or
// as a folder, to true, with one decision of the mode for all of them. It
// judges the name alone, never what is on disk: a rule for folders only
// (archive/) keeps out "archive" whether or not such a folder exists, so
// a refusal built on it cannot tell a caller that an ignored folder is
// there; nor does a repository nested on the way count. One thing Git
// decides from the disk: a name that is a folder there it judges as a
// folder only, so a name ignored as a file but admitted as a folder (as
// under `*` and `!*/`) is refused only while no such folder exists, which
// is then no hidden thing but an admitted folder. An unsafe path counts as
// ignored. It does not apply the secret-looking name list (see Sensitive).
func IgnoredNames(ctx context.Context, ws *workspace.Workspace, rels []string) (map[string]bool, error) {
	out := map[string]bool{}
	var safe []string
	for _, rel := range rels {
		if guard.SafeRelPath(rel, 4096) {
			safe = append(safe, rel)
		} else {
			out[rel] = true
		}
	}
	if len(safe) == 0 {
		return out, nil
	}
	ig, err := newIgnorer(ctx, ws, nil)
	if err != nil {
		return nil, err
	}
	// A name beneath a folder whose entries cannot be looked at is judged
	// as one beneath a folder that does not exist: nothing there can be
	// read, so no ignore file of its own can matter (nor Git's warning that
	// it could not read one), and the rules above still judge it. Refusing
	// the call instead would tell a caller which folders are unreadable.
	ig.lstat, ig.argument = absentIfUnreadable(ws.Lstat), true
	if ig.blocks != nil {
		ig.blocks.lstat = ig.lstat
	}
	safe = uniqueSorted(safe)
	// By the rules alone: a folder on the way that is a repository of its
	// own keeps its files out, but whether one is there is the disk's to
	// say, and a refusal built on it would say it.
	asFile, err := ig.byRules(ctx, safe)
	if err != nil {
		return nil, err
	}
	var forGit []string
	for _, rel := range safe {
		if asFile[rel] {
			out[rel] = true
			continue
		}
		if ig.blocks != nil {
			asFolder, err := ig.blocks.dirIgnored(rel)
			if err != nil {
				return nil, err
			}
			if asFolder {
				out[rel] = true
				continue
			}
		}
		// Git judges "rel/" as a folder without looking for one.
		forGit = append(forGit, rel+"/")
	}
	if ig.mode == ModeThin || len(forGit) == 0 {
		return out, nil
	}
	byGit, err := gitIgnoredBatched(ctx, ig.site, forGit, ig.excludes, false)
	if err != nil {
		return nil, err
	}
	for q := range byGit {
		out[strings.TrimSuffix(q, "/")] = true
	}
	return out, nil
}

// absentIfUnreadable is lstat, answering "nothing there" where a folder on
// the way may not be searched (permission denied).
func absentIfUnreadable(lstat func(string) (workspace.Info, error)) func(string) (workspace.Info, error) {
	return func(rel string) (workspace.Info, error) {
		info, err := lstat(rel)
		if errors.Is(err, fs.ErrPermission) {
			return workspace.Info{}, nil
		}
		return info, err
	}
}

// ignorer answers, for one call, whether the ignore rules keep paths out,
// in the mode detected for the workspace.
type ignorer struct {
	mode     Mode
	site     gitSite // Git and nested modes
	excludes string
	blocks   *blocks // thin and nested modes
	ws       *workspace.Workspace
	repos    map[string]bool // folder -> holds a .git entry of its own
	// lstat is ws.Lstat, or a batch reader's while a batch of folders is
	// asked about (each folder then opened once, beneath its parent).
	lstat func(rel string) (workspace.Info, error)
	// argument: the paths asked about are a caller's arguments, whose
	// answer reads nothing (IgnoredNames).
	argument bool
}

func newIgnorer(ctx context.Context, ws *workspace.Workspace, ignoreFiles []string) (*ignorer, error) {
	return newIgnorerPlanned(ctx, ws, ignoreFiles, nil)
}

// newIgnorerPlanned is newIgnorer, or with a planned root block (planned
// says whether it is the cocoindex variant) the rules the workspace will
// have once that block is its .gitignore's: in Git the block's rules and
// Git's, elsewhere the block in place of the root's file.
func newIgnorerPlanned(ctx context.Context, ws *workspace.Workspace, ignoreFiles []string, planned *bool) (*ignorer, error) {
	mode, site, excludes, err := modeAndExcludes(ctx, ws)
	if err != nil {
		return nil, err
	}
	ig := &ignorer{mode: mode, site: site, excludes: excludes, ws: ws, repos: map[string]bool{}, lstat: ws.Lstat}
	switch {
	case planned != nil:
		// Matched as the block is outside Git, without case: in Git that
		// may hide more than Git will (a .Vivary/Private/ folder on a
		// file system with case), never less.
		ig.blocks = &blocks{ws: ws, nested: mode == ModeThin, at: map[string]bool{"": *planned},
			looked: map[string]bool{"": true}, lstat: ws.Lstat}
	case mode != ModeGit:
		if ig.blocks, err = readBlocks(ws, mode == ModeThin); err != nil {
			return nil, err
		}
	}
	if err := ig.addIgnoreFiles(ignoreFiles); err != nil {
		return nil, err
	}
	return ig, nil
}

// addIgnoreFiles takes in the .gitignore entries a walk met: in a worktree
// a linked one refuses; outside Git each nested one must be a block.
func (ig *ignorer) addIgnoreFiles(ignoreFiles []string) error {
	if ig.mode != ModeThin {
		for _, f := range ignoreFiles {
			if _, name := splitDir(f); name != ".gitignore" {
				continue // Git's own case rules decide whether it reads it
			}
			info, err := ig.lstat(f)
			if errors.Is(err, fs.ErrPermission) {
				return unavailable("a folder holding a .gitignore could not be searched (its permissions changed while the workspace was read); run again", err)
			}
			if err != nil || info.IsLink() {
				return unavailable("a .gitignore in the workspace is a link; Git skips linked ignore files, so replace it with a regular file", err)
			}
		}
	}
	if ig.blocks != nil {
		return ig.blocks.add(ignoreFiles)
	}
	return nil
}

// ignored maps each of paths the rules keep out to true: in a worktree
// root Git's answer; outside Git the blocks'; nested in a larger worktree
// a path must pass both.
func (ig *ignorer) ignored(ctx context.Context, paths []string) (map[string]bool, error) {
	var rest []string
	inRepo := map[string]bool{}
	for i, p := range paths {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, reason.Wrap(reason.ProducerUnavailable, "cancelled", ctx.Err())
		}
		dir, _ := splitDir(p)
		in, err := ig.inRepository(dir)
		if err != nil {
			return nil, err
		}
		if in {
			inRepo[p] = true
		} else {
			rest = append(rest, p)
		}
	}
	ignored, err := ig.byRules(ctx, rest)
	if err != nil {
		return nil, err
	}
	for p := range inRepo {
		ignored[p] = true
	}
	return ignored, nil
}

// byRules is ignored by the rules alone, never asking whether a folder on
// the way is a repository of its own.
func (ig *ignorer) byRules(ctx context.Context, paths []string) (map[string]bool, error) {
	ignored := map[string]bool{}
	var forGit []string
	for i, p := range paths {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, reason.Wrap(reason.ProducerUnavailable, "cancelled", ctx.Err())
		}
		if ig.blocks != nil {
			out, err := ig.blocks.ignored(p)
			if err != nil {
				return nil, err
			}
			if out {
				ignored[p] = true
				continue
			}
		}
		forGit = append(forGit, p)
	}
	if ig.mode == ModeThin {
		return ignored, nil
	}
	byGit, err := gitIgnoredBatched(ctx, ig.site, forGit, ig.excludes, !ig.argument)
	if err != nil {
		return nil, err
	}
	for p := range byGit {
		ignored[p] = true
	}
	return ignored, nil
}

// inRepository reports whether the folder dir, or any folder above it
// below the root, holds a .git entry: a repository or submodule of its
// own, whose info/exclude and excludes file only its own Git reads. Its
// files are kept out as ignored, as the enclosing Git keeps out a nested
// repository's files; nothing can tell which of them its rules hide.
func (ig *ignorer) inRepository(dir string) (bool, error) {
	for at := dir; at != ""; at, _ = splitDir(at) {
		in, ok := ig.repos[at]
		if !ok {
			info, err := ig.lstat(at + "/.git")
			if err != nil {
				return false, unavailable("a folder's .git entry cannot be inspected", err)
			}
			in = info.Exists
			ig.repos[at] = in
		}
		if in {
			return true, nil
		}
	}
	return false, nil
}
