package policy

import (
	"context"
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
	return admit(ctx, ws, s.ig, candidates, opt)
}

// IgnoredDirs maps each of dirs (existing folders, safe relative paths)
// that the ignore rules keep out, as a whole, to true: Git's answer for the
// folder itself in a worktree (Git reports a folder ignored when a pattern
// matches it or any folder above it, and then re-includes nothing beneath
// it, whatever a negation says), the blocks' outside Git, and both when
// nested in a larger worktree. All of dirs go to Git in one batch.
func (s *Session) IgnoredDirs(ctx context.Context, dirs []string) (map[string]bool, error) {
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
	ignored := map[string]bool{}
	var forGit []string
	for _, d := range dirs {
		if !guard.SafeRelPath(d, 4096) {
			ignored[d] = true
			continue
		}
		if in, err := s.ig.inRepository(d); err != nil || in {
			if err != nil {
				return nil, err
			}
			ignored[d] = true
			continue
		}
		if s.ig.blocks != nil {
			out, err := s.ig.blocks.dirIgnored(d)
			if err != nil {
				return nil, err
			}
			if out {
				ignored[d] = true
				continue
			}
		}
		forGit = append(forGit, d)
	}
	if s.ig.mode == ModeThin {
		return ignored, nil
	}
	byGit, err := gitIgnoredBatched(ctx, s.ig.site, forGit, s.ig.excludes)
	if err != nil {
		return nil, err
	}
	for d := range byGit {
		ignored[d] = true
	}
	return ignored, nil
}

// gitBatch bounds the paths one git check-ignore is given, so its output
// (a record of at most a few hundred bytes per path) stays far inside
// MaxGitOutputBytes however many candidates a large vault has.
const gitBatch = 8192

// gitIgnoredBatched is gitIgnored over any number of paths, in batches run
// on every core.
func gitIgnoredBatched(ctx context.Context, site gitSite, paths []string, excludes string) (map[string]bool, error) {
	if len(paths) <= gitBatch {
		return gitIgnored(ctx, site, paths, excludes)
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
			got, err := gitIgnored(ctx, site, batch, excludes)
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
