package policy

import (
	"context"
	"errors"
	"io/fs"
	"runtime"
	"sync"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Session is the ignore policy of one walk: the mode detected once, then
// asked about folders as the walk meets them, so a folder the rules keep
// out is never entered and nothing beneath it is counted or read. Pruning
// only ever leaves files out; whatever the walk does list is still judged
// path by path by Admit, which stays the one decision on what may be read.
type Session struct {
	ig *ignorer
}

// NewSession detects the workspace's mode and reads the root block where
// one is in force. Outside Git, nested blocks are read as folders are asked
// about beneath them.
func NewSession(ctx context.Context, ws *workspace.Workspace) (*Session, error) {
	ig, err := newIgnorer(ctx, ws, nil)
	if err != nil {
		return nil, err
	}
	return &Session{ig: ig}, nil
}

// NewPlannedSession is NewSession for the rules a workspace will have once
// its root .gitignore holds the generated block (the cocoindex variant when
// cocoindex): what create-vivary adopt previews notes under, before it has
// written anything. In a worktree Git's rules apply as well.
func NewPlannedSession(ctx context.Context, ws *workspace.Workspace, cocoindex bool) (*Session, error) {
	ig, err := newIgnorerPlanned(ctx, ws, nil, &cocoindex)
	if err != nil {
		return nil, err
	}
	return &Session{ig: ig}, nil
}

// Mode is the mode the session detected.
func (s *Session) Mode() Mode { return s.ig.mode }

// Outside are the files outside the workspace that decide the session's
// answers, as a stat said before Git read them.
func (s *Session) Outside() []Outside { return s.ig.site.outside }

// Ignored maps each of files (safe relative paths) the ignore rules keep
// out to true; it does not apply the secret-looking name list.
func (s *Session) Ignored(ctx context.Context, files []string) (map[string]bool, error) {
	return s.ig.ignored(ctx, files)
}

// Admit is the package's Admit with the mode this session detected, so the
// walk's folder answers and the final file answers come from one reading
// of the rules. opt.IgnoreFiles are taken in as Admit takes them in. A
// session is used by one goroutine at a time.
func (s *Session) Admit(ctx context.Context, ws *workspace.Workspace, candidates []string, opt Options) (*Admission, error) {
	// The files' folders are looked at for nested ignore files: one batch
	// reader opens each folder once, beneath its parent's handle, as
	// IgnoredDirs does (from the root each time, a cold call at 50,000
	// notes opened 8,000 folders more than it has).
	r := s.ig.ws.NewReader()
	defer r.Close()
	s.ig.lstat = r.Lstat
	defer func() { s.ig.lstat = s.ig.ws.Lstat }()
	if s.ig.blocks != nil {
		s.ig.blocks.lstat = r.Lstat
		defer func() { s.ig.blocks.lstat = s.ig.ws.Lstat }()
	}
	return admit(ctx, ws, s.ig, candidates, opt)
}

// IgnoredDirs maps each of dirs (existing folders, safe relative paths)
// that the ignore rules keep out, as a whole, to true: Git's answer for the
// folder itself in a worktree (Git reports a folder ignored when a pattern
// matches it or any folder above it, and then re-includes nothing beneath
// it, whatever a negation says), the blocks' outside Git, and both when
// nested in a larger worktree. All of dirs go to Git in one batch.
//
// unreadable maps each folder the rules do not keep out but whose own
// entries cannot be looked at (permission denied): nothing in it can be
// read, so the caller leaves it out whole rather than refusing the call.
func (s *Session) IgnoredDirs(ctx context.Context, dirs []string) (ignored, unreadable map[string]bool, err error) {
	// A level's folders share their parents: one batch reader opens each
	// folder once, beneath its parent's handle, instead of once per
	// question from the root.
	r := s.ig.ws.NewReader()
	defer r.Close()
	s.ig.lstat = r.Lstat
	defer func() { s.ig.lstat = s.ig.ws.Lstat }()
	if s.ig.blocks != nil {
		s.ig.blocks.lstat = r.Lstat
		defer func() { s.ig.blocks.lstat = s.ig.ws.Lstat }()
	}
	ignored, unreadable = map[string]bool{}, map[string]bool{}
	var forGit []string
	for _, d := range dirs {
		if !guard.SafeRelPath(d, 4096) {
			ignored[d] = true
			continue
		}
		in, err := s.ig.inRepository(d)
		switch {
		case err != nil && errors.Is(err, fs.ErrPermission):
			// Whether it holds a repository of its own cannot be told,
			// and needs not be: nothing beneath it can be read. Whether
			// the rules keep it out is still asked, so that an ignored
			// folder is counted as ignored and never named.
			unreadable[d] = true
		case err != nil:
			return nil, nil, err
		case in:
			ignored[d] = true
			continue
		}
		if s.ig.blocks != nil {
			out, err := s.ig.blocks.dirIgnored(d)
			if err != nil {
				return nil, nil, err
			}
			if out {
				ignored[d] = true
				continue
			}
		}
		forGit = append(forGit, d)
	}
	if s.ig.mode != ModeThin {
		byGit, err := gitIgnoredBatched(ctx, s.ig.site, forGit, s.ig.excludes, true)
		if err != nil {
			return nil, nil, err
		}
		for d := range byGit {
			ignored[d] = true
		}
	}
	for d := range unreadable {
		if ignored[d] {
			delete(unreadable, d)
		}
	}
	return ignored, unreadable, nil
}

// gitBatch bounds the paths one git check-ignore is given, so its output
// (a record of at most a few hundred bytes per path) stays far inside
// MaxGitOutputBytes however many candidates a large vault has.
const gitBatch = 8192

// gitIgnoredBatched is gitIgnored over any number of paths, in batches run
// on every core.
func gitIgnoredBatched(ctx context.Context, site gitSite, paths []string, excludes string, strict bool) (map[string]bool, error) {
	if len(paths) <= gitBatch {
		return gitIgnored(ctx, site, paths, excludes, strict)
	}
	var (
		mu      sync.Mutex
		ignored = map[string]bool{}
		first   error
		wg      sync.WaitGroup
		sem     = make(chan struct{}, runtime.GOMAXPROCS(0))
	)
	for lo := 0; lo < len(paths); lo += gitBatch {
		batch := paths[lo:min(lo+gitBatch, len(paths))]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			got, err := gitIgnored(ctx, site, batch, excludes, strict)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
				}
				return
			}
			for p := range got {
				ignored[p] = true
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return ignored, nil
}
