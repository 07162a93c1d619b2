package policy

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Mode says which ignore policy applied.
type Mode string

const (
	// ModeGit: the root is exactly a Git worktree root, and Git decides.
	ModeGit Mode = "git"
	// ModeThin: outside Git, only copies of the exact generated block decide.
	ModeThin Mode = "thin"
	// ModeNested: the root lies inside a larger Git worktree. The root's
	// own .gitignore must still be the exact block, and a path is admitted
	// only when both that block and the enclosing repository's whole ignore
	// chain admit it: the user cannot edit the block to hide what the
	// enclosing repository already hides, so its rules must apply here too.
	ModeNested Mode = "nested"
)

// gitSite is where Git is asked from: the worktree root, the workspace
// root's path beneath it ("" when they are the same), and the files outside
// the workspace whose change can change Git's answer.
type gitSite struct {
	top        string
	prefix     string
	outside    []Outside
	ignoreCase bool // the user's Git matches ignore rules without case
}

// path is rel as Git sees it from the worktree root. check-ignore parses
// its paths as pathspecs and refuses --literal-pathspecs, so a leading
// "./" keeps a name such as ":/diary.md" from being read as magic (":/" is
// "from the top", which would judge diary.md instead).
func (g gitSite) path(rel string) string {
	if g.prefix == "" {
		return "./" + rel
	}
	return "./" + g.prefix + "/" + rel
}

// detectMode asks git whether the root is inside a worktree, and where that
// worktree's root is. A .git marker that git will not open (a broken
// gitdir file, a repository owned by someone else) refuses: its rules might
// hide files, and nothing else can read them.
func detectMode(ctx context.Context, ws *workspace.Workspace) (Mode, gitSite, error) {
	out, code, err := RunGit(ctx, ws.Root(), nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", gitSite{}, gitFailed(err, "git could not be asked about the workspace")
	}
	if code != 0 {
		if gitMarkerAbove(ws.Root()) {
			return "", gitSite{}, unavailable("the workspace lies inside a folder with a .git that Git refuses to open "+
				"(a broken .git file, or a repository owned by another user); repair that repository or move the workspace out of it", nil)
		}
		return ModeThin, gitSite{}, nil
	}
	if len(out) == 0 || out[len(out)-1] != '\n' || bytes.Count(out, []byte("\n")) != 1 {
		return "", gitSite{}, unavailable("git answered with malformed output", nil)
	}
	top := string(out[:len(out)-1])
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	if top == ws.Root() {
		info, err := ws.Lstat(".git")
		if err != nil || !info.IsDir() {
			return "", gitSite{}, unavailable("the workspace's .git is not a plain directory (a linked worktree or a submodule, whose ignore rules live elsewhere); "+
				"use a plain clone or the main worktree as the workspace, or a folder outside Git", err)
		}
		return ModeGit, gitSite{top: top}, nil
	}
	site, err := enclosingSite(ws, top)
	if err != nil {
		return "", gitSite{}, err
	}
	return ModeNested, site, nil
}

// enclosingSite checks that top really is an ancestor of the root with a
// plain .git directory, and stamps every file outside the workspace that
// Git reads to decide what is ignored beneath the root: the repository's
// config and info/exclude, and each folder and .gitignore from the
// worktree root down to the workspace root's parent. The stamps are taken
// before Git is asked, so a change at any later moment shows.
func enclosingSite(ws *workspace.Workspace, top string) (gitSite, error) {
	prefix, err := filepath.Rel(top, ws.Root())
	if err != nil || prefix == "." || strings.HasPrefix(prefix, "..") || filepath.IsAbs(prefix) {
		return gitSite{}, unavailable("git named a worktree root that does not contain the workspace", err)
	}
	prefix = filepath.ToSlash(prefix)
	if !guard.SafeRelPath(prefix, 4096) {
		return gitSite{}, unavailable("the workspace's path inside the enclosing Git worktree cannot be passed to Git safely", nil)
	}
	// The root Git named must be the very directory the workspace was bound
	// beneath: compare identities, not names.
	dev, ino := ws.Identity()
	if at := workspace.StatPath(filepath.Join(top, filepath.FromSlash(prefix))); !at.Exists || at.Dev != dev || at.Ino != ino {
		return gitSite{}, unavailable("the enclosing Git worktree does not contain the bound workspace", nil)
	}
	gitDir := filepath.Join(top, ".git")
	if !workspace.StatPath(gitDir).IsDir() {
		return gitSite{}, unavailable("the enclosing Git worktree's .git is not a plain directory (a linked worktree or a submodule); "+
			"bind the worktree root instead, or move the workspace out of it", nil)
	}
	site := gitSite{top: top, prefix: prefix}
	stat := func(p string) { site.outside = append(site.outside, Outside{p, workspace.StatPath(p)}) }
	for _, rel := range []string{"", "config", "HEAD", "info", "info/exclude"} {
		stat(filepath.Join(gitDir, filepath.FromSlash(rel)))
	}
	dir := top
	stat(dir)
	stat(filepath.Join(dir, ".gitignore"))
	parts := strings.Split(prefix, "/")
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		stat(dir)
		stat(filepath.Join(dir, ".gitignore"))
	}
	return site, nil
}

// gitMarkerAbove reports a .git entry in the root or any folder above it on
// the same filesystem: where Git's own discovery would have looked.
func gitMarkerAbove(root string) bool {
	st := workspace.StatPath(root)
	if !st.Exists {
		return true // cannot tell: treat as present, which refuses
	}
	dev := st.Dev
	for dir := root; ; {
		if workspace.StatPath(filepath.Join(dir, ".git")).Exists {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		if st = workspace.StatPath(parent); !st.Exists {
			return true
		}
		if st.Dev != dev {
			return false // Git stops at a filesystem boundary too
		}
		dir = parent
	}
}

// modeAndExcludes runs the two independent git questions at once: where
// the worktree is, and which excludes file the user's Git uses. Outside Git
// the second answer goes unused; asking it anyway keeps it off the critical
// path of a Git workspace.
func modeAndExcludes(ctx context.Context, ws *workspace.Workspace) (Mode, gitSite, string, error) {
	var excludes string
	var outside []Outside
	var ignoreCase bool
	done := make(chan struct{})
	var userErr error
	go func() {
		defer close(done)
		excludes, outside, ignoreCase, userErr = userExcludes(ctx, ws.Root())
	}()
	mode, site, err := detectMode(ctx, ws)
	<-done
	if err != nil || mode == ModeThin {
		return mode, gitSite{}, "", err
	}
	if userErr != nil {
		return "", gitSite{}, "", gitFailed(userErr, "git could not be asked for your own Git's excludes file (core.excludesFile), so what it hides is unknown")
	}
	// Git reads a relative excludes file from the worktree root.
	if excludes != "" && !filepath.IsAbs(excludes) {
		excludes = filepath.Join(site.top, excludes)
		outside = append(outside, Outside{excludes, workspace.StatPath(excludes)})
	}
	site.outside = append(site.outside, outside...)
	site.ignoreCase = ignoreCase
	return mode, site, excludes, nil
}

// gitIgnored asks `git check-ignore` which paths Git ignores, from the
// worktree root. Every path gets one record (-n); a record with a
// non-negated pattern is ignored. Git goes on without an ignore file it
// may not read (a .gitignore, .git/info/exclude or the excludes file with
// no read permission, or beneath a folder with no search permission),
// with only a warning, and would call what it hides admitted: strict
// refuses then. Only a caller whose answer reads nothing (a path argument,
// judged before a selection among the admitted) passes strict false.
func gitIgnored(ctx context.Context, site gitSite, paths []string, excludes string, strict bool) (map[string]bool, error) {
	ignored := map[string]bool{}
	if len(paths) == 0 {
		return ignored, nil
	}
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(site.path(p))
		in.WriteByte(0)
	}
	args := []string{}
	if excludes != "" {
		args = append(args, "-c", "core.excludesFile="+excludes)
	}
	if site.ignoreCase {
		args = append(args, "-c", "core.ignoreCase=true")
	}
	args = append(args, "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin")
	out, warned, code, err := runGit(ctx, site.top, in.Bytes(), args...)
	if err != nil {
		return nil, gitFailed(err, "git check-ignore did not finish")
	}
	if warned && strict {
		return nil, unavailable("Git could not read one of the workspace's ignore files (a .gitignore, .git/info/exclude "+
			"or the excludes file its user may not read), so what it hides is unknown; give your user read permission on them", nil)
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
		if string(rec[3]) != site.path(p) {
			return nil, unavailable("git check-ignore output is malformed", nil)
		}
		pat := rec[2]
		if len(pat) > 0 && pat[0] != '!' {
			ignored[p] = true
		}
	}
	return ignored, nil
}
