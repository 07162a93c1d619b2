package capsule

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// fact is one observed checkout fact: known with a value, or unknown with a reason.
type fact struct {
	name   string
	known  bool
	value  any
	reason string
}

// observation is what a fixed set of git reads says of the checkout.
type observation struct {
	git        bool
	facts      map[string]fact
	headRev    any // string or nil
	headRef    any // map or nil
	dirty      any // bool or nil
	dirtyPaths []string
	remotes    []map[string]string
	markers    map[string]bool
	branch     string
}

var workspaceMarkers = []string{"tropo.toml", "package.json", "pyproject.toml", "AGENTS.md", "STRATO.md", "tox.ini", "noxfile.py", "Cargo.toml", "go.mod", "Makefile"}

func gitOut(ctx context.Context, root string, args ...string) (string, int, error) {
	out, code, err := policy.RunGit(ctx, root, nil, args...)
	if err != nil {
		var re *reason.Error
		if errors.As(err, &re) {
			return "", -1, err // cancelled
		}
		return "", -1, reasonProducer("git could not be run")
	}
	return string(out), code, nil
}

// observeCheckout reads the checkout facts of the root with fixed git calls.
// A root nested inside a larger worktree is refused.
func observeCheckout(ctx context.Context, r *produce.Reader, snap *snapshot.Snapshot) (*observation, error) {
	root := r.Workspace().Root()
	o := &observation{facts: map[string]fact{}, markers: map[string]bool{}}
	set := func(f fact) { o.facts[f.name] = f }
	top, code, err := gitOut(ctx, root, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	if code != 0 {
		set(fact{name: "is_git_repository", reason: "not_a_git_repository_or_git_failed"})
		return o, nil
	}
	top = strings.TrimSuffix(top, "\n")
	if top != root {
		if real, err := filepath.EvalSymlinks(top); err != nil || real != root {
			return nil, reasonProducer("the capsule root must be the Git worktree root; nested roots are refused")
		}
	}
	o.git = true
	set(fact{name: "is_git_repository", known: true, value: true})
	// The five reads are independent, so they run at once; status over a
	// large tree is the slow one. Every call runs with --no-optional-locks
	// (RunGit), so none of them writes the index.
	reads := [][]string{
		{"rev-parse", "--verify", "-q", "HEAD^{commit}"},
		{"symbolic-ref", "-q", "HEAD"},
		{"status", "--porcelain=v1", "-z", "--untracked-files=all"},
		{"remote", "-v"},
		{"rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"},
	}
	type answer struct {
		out  string
		code int
		err  error
	}
	answers := make([]answer, len(reads))
	var wg sync.WaitGroup
	for i, args := range reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := &answers[i]
			a.out, a.code, a.err = gitOut(ctx, root, args...)
		}()
	}
	wg.Wait()
	for _, a := range answers {
		if a.err != nil {
			return nil, a.err
		}
	}
	head, sym, status, remote, upstream := answers[0], answers[1], answers[2], answers[3], answers[4]
	if out, code := head.out, head.code; code == 0 {
		rev := strings.TrimSpace(out)
		o.headRev = rev
		set(fact{name: "head_revision", known: true, value: rev})
	} else {
		set(fact{name: "head_revision", reason: "head_unresolvable_possibly_unborn_branch"})
	}
	if out, code := sym.out, sym.code; code == 0 && strings.HasPrefix(out, "refs/heads/") {
		o.branch = strings.TrimSpace(strings.TrimPrefix(out, "refs/heads/"))
		o.headRef = map[string]any{"kind": "branch", "name": o.branch}
		set(fact{name: "head_ref", known: true, value: o.headRef})
	} else if o.headRev != nil {
		o.headRef = map[string]any{"kind": "detached"}
		set(fact{name: "head_ref", known: true, value: o.headRef})
	} else {
		set(fact{name: "head_ref", reason: "head_ref_unresolvable"})
	}
	if out, code := status.out, status.code; code != 0 {
		set(fact{name: "is_dirty", reason: "status_unavailable"})
		set(fact{name: "dirty_entries", reason: "status_unavailable"})
	} else {
		entries, ok := parseStatus(out)
		if !ok {
			set(fact{name: "is_dirty", reason: "status_malformed"})
			set(fact{name: "dirty_entries", reason: "status_malformed"})
		} else {
			var public []string
			for _, e := range entries {
				o.dirtyPaths = append(o.dirtyPaths, e[1])
				if !policy.Sensitive(e[1]) && guard.SafeRelPath(e[1], limits.MaxPathChars) {
					public = append(public, e[0]+" "+e[1])
				}
			}
			sort.Slice(o.dirtyPaths, func(i, j int) bool { return guard.Less(o.dirtyPaths[i], o.dirtyPaths[j]) })
			o.dirty = len(entries) > 0
			set(fact{name: "is_dirty", known: true, value: o.dirty})
			set(fact{name: "dirty_entries", known: true, value: public})
		}
	}
	if out, code := remote.out, remote.code; code != 0 {
		set(fact{name: "remotes", reason: "remotes_unreadable"})
	} else {
		seen := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			parts := strings.Fields(line)
			if len(parts) < 3 || seen[parts[0]+parts[2]] {
				continue
			}
			seen[parts[0]+parts[2]] = true
			o.remotes = append(o.remotes, map[string]string{"name": parts[0], "url": redactUserinfo(parts[1]), "direction": strings.Trim(parts[2], "()")})
		}
		set(fact{name: "remotes", known: true, value: o.remotes})
	}
	if upstream.code != 0 {
		set(fact{name: "upstream", reason: "no_upstream_configured"})
	}
	if info, err := r.Workspace().Lstat(".git/FETCH_HEAD"); err == nil && info.Exists {
		set(fact{name: "last_fetch", known: true, value: time.Unix(0, info.Mtime).UTC().Format("2006-01-02T15:04:05.000Z")})
	} else {
		set(fact{name: "last_fetch", reason: "no_fetch_recorded"})
	}
	for _, m := range workspaceMarkers {
		if info, err := r.Workspace().Lstat(m); err == nil && info.IsRegular() && info.Nlink == 1 {
			o.markers[m] = true
		}
	}
	return o, nil
}

// parseStatus splits `status --porcelain=v1 -z` into (state, path) pairs.
func parseStatus(out string) ([][2]string, bool) {
	var entries [][2]string
	parts := strings.Split(out, "\x00")
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		if p == "" {
			continue
		}
		if len(p) < 4 || p[2] != ' ' {
			return nil, false
		}
		state, path := strings.TrimSpace(p[:2]), p[3:]
		entries = append(entries, [2]string{state, path})
		if p[0] == 'R' || p[0] == 'C' {
			i++ // the rename source follows
		}
	}
	return entries, true
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

// workspaceFingerprint binds the checkout state and the admitted documents.
// The root path is hashed, never disclosed.
func (o *observation) workspaceFingerprint(root string, snap *snapshot.Snapshot) (string, error) {
	remotes := []map[string]string{}
	if o.remotes != nil {
		remotes = o.remotes
	}
	dirty := o.dirtyPaths
	if dirty == nil {
		dirty = []string{}
	}
	return canon.Fingerprint(map[string]any{
		"checkouts": []any{map[string]any{
			"path": root, "head_revision": o.headRev, "head_ref": o.headRef, "is_dirty": o.dirty,
			"dirty_paths": dirty, "remotes": remotes,
		}},
		"documents": snap.Fingerprint,
	})
}

// contentMatch is one privacy-admitted line that holds a question term.
type contentMatch struct {
	path, term, excerpt string
	line                int
}

// observeContent greps HEAD for the terms and keeps only matches in paths
// the privacy policy admits: at most 8 files and 3 lines each.
func observeContent(ctx context.Context, r *produce.Reader, o *observation, terms []string) ([]contentMatch, string, error) {
	if !o.git || o.headRev == nil {
		return nil, "dirty_state_unknown", nil
	}
	if len(terms) == 0 {
		return nil, "", nil
	}
	args := []string{"grep", "-z", "-n", "-I", "-i", "-F", "--no-color"}
	for _, t := range terms {
		args = append(args, "-e", t)
	}
	args = append(args, o.headRev.(string), "--")
	out, code, err := gitOut(ctx, r.Workspace().Root(), args...)
	if err != nil {
		return nil, "", err
	}
	if code == 1 {
		return nil, "", nil
	}
	if code != 0 {
		return nil, "content_search_unavailable", nil
	}
	prefix := o.headRev.(string) + ":"
	byPath := map[string][]contentMatch{}
	var paths []string
	for _, line := range strings.Split(out, "\n") {
		fields := strings.SplitN(line, "\x00", 3)
		if len(fields) != 3 || !strings.HasPrefix(fields[0], prefix) {
			continue
		}
		p := strings.TrimPrefix(fields[0], prefix)
		n, err := strconv.Atoi(fields[1])
		if err != nil || !guard.SafeRelPath(p, limits.MaxPathChars) {
			continue
		}
		if _, ok := byPath[p]; !ok {
			paths = append(paths, p)
		}
		low := strings.ToLower(fields[2])
		term := ""
		for _, t := range terms {
			if strings.Contains(low, t) {
				term = t
				break
			}
		}
		if len(byPath[p]) < 3 {
			byPath[p] = append(byPath[p], contentMatch{path: p, term: term, line: n, excerpt: excerpt(fields[2])})
		}
	}
	// Only paths the privacy policy admits may contribute, and only ones that
	// still exist as regular files the policy can judge.
	var admissible []string
	for _, p := range paths {
		if info, err := r.Workspace().Lstat(p); err == nil && info.IsRegular() && info.Nlink == 1 && !policy.Sensitive(p) {
			admissible = append(admissible, p)
		}
	}
	var adm *policy.Admission
	if len(admissible) > 0 {
		if adm, err = policy.Admit(ctx, r.Workspace(), admissible, policy.Options{}); err != nil {
			return nil, "", err
		}
	}
	sort.Slice(admissible, func(i, j int) bool { return guard.Less(admissible[i], admissible[j]) })
	var matches []contentMatch
	files := 0
	for _, p := range admissible {
		if !adm.Admits(p) {
			continue
		}
		if files == 8 {
			break
		}
		files++
		matches = append(matches, byPath[p]...)
	}
	return matches, "", nil
}

func excerpt(s string) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

var unicodeWord = func(r rune) bool { return !guard.IsWordRune(r) || r == '_' }

// governedTerms are the Unicode word runs of the question, without stopwords
// or one-letter ASCII words, deduplicated, at most 16.
//
// One of three tokenizers, each matching what it feeds: search.Terms ranks
// notes (stems, compounds, identifiers); governedTerms are the fixed strings
// the capsule's `git grep -F -i` looks for in HEAD, so they stay whole
// lower-cased words, as the reference greps them; selectionTerms (capsule.go)
// only pick which observed facts a question is about.
func governedTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), unicodeWord) {
		if stopwords[w] || (len(w) == 1 && w[0] < 0x80) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == 16 {
			break
		}
	}
	return out
}

// stopwords are the reference's 27, which governed observation keeps.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be by do does for from how i in is it of on or our the this to we what where which who why") {
		stopwords[w] = true
	}
}
