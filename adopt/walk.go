package adopt

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/workspace"
)

// survey is what one walk of the folder found.
type survey struct {
	inventory   Inventory
	md, code    int      // the preset vote
	ignoreFiles []string // every .gitignore the producers' walk would meet
}

// Build output and tool folders whose files say nothing about the preset.
var uncounted = map[string]bool{".git": true, "node_modules": true, "__pycache__": true, ".venv": true, "venv": true,
	"dist": true, "build": true, ".astro": true, ".next": true, "target": true}

// Top-level folders and root files of a Vivary or legacy layout: they do
// not vote on the preset.
var (
	nonVotingFolders = map[string]bool{"templates": true, "modules": true, "changes": true, "decisions": true,
		"verification": true, "gates": true, "memory": true, "heartbeat-reports": true}
	nonVotingFiles = map[string]bool{"README.md": true, "AGENTS.md": true, "SOUL.md": true, "STRATO.md": true, "STATE.md": true,
		"USER.md": true, "MEMORY.md": true, "bug-risk-playbook.md": true, "tropo.toml": true, ".gitignore": true}
	codeSuffixes = map[string]bool{"py": true, "js": true, "jsx": true, "ts": true, "tsx": true, "mjs": true, "cjs": true,
		"go": true, "rs": true, "java": true, "kt": true, "c": true, "h": true, "cpp": true, "cc": true, "hpp": true, "cs": true,
		"rb": true, "php": true, "swift": true, "m": true, "mm": true, "scala": true, "sh": true, "ps1": true, "sql": true,
		"lua": true, "vue": true, "svelte": true}
)

// walk visits the folder the way the producers will (no link followed, the
// default-excluded and secret-looking folders pruned) to find every
// .gitignore they would meet, and counts the owner's files outside
// dot-folders and build output. It is bounded like a producer's walk.
func walk(ws *workspace.Workspace) (*survey, error) {
	s := &survey{}
	scanned := 0
	var visit func(dir string, counted bool) error
	visit = func(dir string, counted bool) error {
		entries, err := ws.ReadDir(dir)
		if errors.Is(err, fs.ErrPermission) && dir != "" {
			// Nothing in it can be read, by adopt or by any read after:
			// the producers leave it out whole (filesystem/unreadable).
			return nil
		}
		if err != nil {
			return fail("adopt cannot list a folder of the target (%v)", err)
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
		for _, e := range entries {
			if scanned++; scanned > limits.MaxScanEntries {
				return fail("the folder has more than %d entries, more than Vivary can serve", limits.MaxScanEntries)
			}
			rel := path.Join(dir, e.Name)
			if strings.EqualFold(e.Name, ".gitignore") && dir != "" {
				s.ignoreFiles = append(s.ignoreFiles, rel)
			}
			switch {
			case e.IsLink():
			case e.IsDir():
				if policy.IsExcluded(rel, policy.DefaultExclude) || policy.SensitiveName(e.Name) {
					continue
				}
				if err := visit(rel, counted && !uncounted[e.Name] && !strings.HasPrefix(e.Name, ".")); err != nil {
					return err
				}
			case e.IsRegular():
				if counted {
					s.count(rel, e.Name)
				}
			}
		}
		return nil
	}
	if err := visit("", true); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *survey) count(rel, name string) {
	lower := strings.ToLower(name)
	if strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".markdown") {
		s.inventory.Markdown++
	} else {
		s.inventory.NonMarkdown++
	}
	top, _, nested := strings.Cut(rel, "/")
	if nested && nonVotingFolders[top] || !nested && nonVotingFiles[name] {
		return
	}
	if strings.HasSuffix(lower, ".md") {
		s.md++
	} else if i := strings.LastIndexByte(lower, '.'); i >= 0 && codeSuffixes[lower[i+1:]] {
		s.code++
	}
}

// preset infers the preset from the vote, with the reason shown.
func (s *survey) preset() (string, string) {
	switch {
	case s.md == 0 && s.code == 0:
		return "coding", "empty or unrecognized tree; defaulting to coding"
	case s.md > s.code:
		return "second-brain", fmt.Sprintf("markdown-majority tree (%d .md vs %d code file(s))", s.md, s.code)
	case s.md == s.code:
		return "coding", fmt.Sprintf("no file-type majority (%d code file(s) vs %d .md); defaulting to coding", s.code, s.md)
	}
	return "coding", fmt.Sprintf("code-majority tree (%d code file(s) vs %d .md)", s.code, s.md)
}
