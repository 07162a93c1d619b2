package policy

import (
	"errors"
	"sort"
	"strings"

	"github.com/vivary-dev/vivary-go/workspace"
)

// GitignoreBlock is the bounded .gitignore that `create-vivary init` writes
// and that, before `git init`, is the only ignore policy the producers accept
// byte for byte. It is defined here once; init writes this constant.
const GitignoreBlock = "# >>> vivary private/runtime >>>\n" +
	".vivary/private/\n" +
	".vivary/runtime/\n" +
	"*.vivary-tmp\n" +
	"# <<< vivary private/runtime <<<\n"

// GitignoreBlockCocoindex is the variant for the cocoindex-code capability.
const GitignoreBlockCocoindex = "# >>> vivary private/runtime >>>\n" +
	".vivary/private/\n" +
	".vivary/runtime/\n" +
	"*.vivary-tmp\n" +
	".cocoindex_code/\n" +
	"# <<< vivary private/runtime <<<\n"

// thinIgnored applies the exact block's rules to a candidate file path,
// relative to the folder holding the block, the way Git reads them: the two
// anchored directories, any component ending in .vivary-tmp, and
// (cocoindex only) any .cocoindex_code component.
//
// Case is ignored: on a case-insensitive file system (macOS, Windows)
// ".Vivary/Private/x.md" opens the private folder, and Git there matches
// without case too (core.ignoreCase). Elsewhere it only hides a folder
// whose name differs from a private one by case.
func thinIgnored(rel string, cocoindex bool) bool {
	if hasPrefixDir(rel, ".vivary/private") || hasPrefixDir(rel, ".vivary/runtime") {
		return true
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if hasSuffixFold(seg, ".vivary-tmp") || (cocoindex && strings.EqualFold(seg, ".cocoindex_code")) {
			return true
		}
	}
	return false
}

func hasPrefixDir(rel, dir string) bool {
	return len(rel) > len(dir) && strings.EqualFold(rel[:len(dir)], dir) && rel[len(dir)] == '/'
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// ErrNotWorkspace is the cause of the NotWorkspace refusal, for errors.Is.
var ErrNotWorkspace = errors.New("not a Vivary workspace")

// NotWorkspace is the refusal for a folder that was never made a Vivary
// workspace (no .vivary/workspace.toml) and that outside Git cannot be read
// without one: it says what the folder is and what makes it one.
const NotWorkspace = "this folder is not a Vivary workspace: it has no .vivary/workspace.toml, and outside Git nothing is read without one; " +
	"run `create-vivary adopt DIR` to make it one, or `create-vivary init DIR` for a new, empty workspace"

const (
	rootBlockMissing = "outside Git the workspace needs the exact .gitignore block that create-vivary init writes; " +
		"restore it (create-vivary doctor shows the block) or run `git init` so Git's rules apply"
	nestedBlockOwnRules = "a nested .gitignore with rules of its own was found; outside Git only exact copies of the block " +
		"create-vivary init writes are honoured: run `git init` in the workspace so Git's rules are authoritative, or remove that file"
)

// blocks are the exact generated blocks in force without Git: the root's,
// and (outside any worktree) nested copies, each applying beneath its own
// folder. Any other nested .gitignore is arbitrary policy that only Git can
// read exactly, so it refuses. A .gitignore inside a folder a block already
// ignores is never consulted: nothing beneath that folder is admitted
// whatever it says, and Git would not read it either.
type blocks struct {
	ws     *workspace.Workspace
	nested bool                                     // look for nested copies; in a worktree Git reads them itself
	at     map[string]bool                          // folder ("" is the root) -> cocoindex variant
	looked map[string]bool                          // folders whose .gitignore was looked up
	lstat  func(rel string) (workspace.Info, error) // ws.Lstat, or a batch reader's
}

// readBlocks reads the root block, which must be exact. Nested ones are
// read by add and as paths beneath them are asked about.
func readBlocks(ws *workspace.Workspace, nested bool) (*blocks, error) {
	b := &blocks{ws: ws, nested: nested, at: map[string]bool{}, looked: map[string]bool{"": true}, lstat: ws.Lstat}
	coco, err := b.read(".gitignore", rootBlockMissing)
	if err != nil {
		// A missing block in a folder with no type policy either is not a
		// damaged workspace but a folder that never was one.
		if info, lerr := ws.Lstat(ThinConfigPath); lerr == nil && !info.Exists {
			return nil, unavailable(NotWorkspace, ErrNotWorkspace)
		}
		return nil, err
	}
	b.at[""] = coco
	return b, nil
}

// add reads every nested .gitignore the walk met (ignoreFiles, root
// included or not), unless a block above already ignores it.
func (b *blocks) add(ignoreFiles []string) error {
	if !b.nested {
		return nil
	}
	// Shallow first, so a block decides whether a deeper file is consulted.
	files := append([]string(nil), ignoreFiles...)
	sort.Slice(files, func(i, j int) bool { return strings.Count(files[i], "/") < strings.Count(files[j], "/") })
	for _, f := range files {
		dir, name := splitDir(f)
		if !strings.EqualFold(name, ".gitignore") || (dir == "" && name == ".gitignore") {
			continue
		}
		// A file under an ignored folder is itself ignored.
		if ignored, err := b.ignored(f); err != nil || ignored {
			if err != nil {
				return err
			}
			continue
		}
		// On a case-insensitive file system Git reads .GitIgnore as the
		// folder's ignore file; it is never an exact block.
		if name != ".gitignore" {
			return unavailable(nestedBlockOwnRules, nil)
		}
		if err := b.look(dir); err != nil {
			return err
		}
	}
	return nil
}

// read returns which generated block the .gitignore at rel is, or refuses
// with msg: missing, linked, hard-linked, not regular, over the longest
// block, or any other bytes.
func (b *blocks) read(rel, msg string) (bool, error) {
	data, _, err := b.ws.ReadFile(rel, int64(len(GitignoreBlockCocoindex)), nil)
	if err != nil {
		return false, unavailable(msg, err)
	}
	switch string(data) {
	case GitignoreBlock:
		return false, nil
	case GitignoreBlockCocoindex:
		return true, nil
	}
	return false, unavailable(msg, nil)
}

// look reads dir's .gitignore once, if there is any entry of that name.
func (b *blocks) look(dir string) error {
	if b.looked[dir] {
		return nil
	}
	b.looked[dir] = true
	rel := dir + "/.gitignore"
	info, err := b.lstat(rel)
	if err != nil {
		return unavailable("a nested .gitignore cannot be inspected", err)
	}
	if !info.Exists {
		return nil
	}
	coco, err := b.read(rel, nestedBlockOwnRules)
	if err != nil {
		return err
	}
	b.at[dir] = coco
	return nil
}

// ignored applies every block in force above rel, looking up nested ones
// on the way down; a folder a block ignores is not entered.
func (b *blocks) ignored(rel string) (bool, error) {
	dir, rest := "", rel
	for {
		if coco, ok := b.at[dir]; ok && thinIgnored(rest, coco) {
			return true, nil
		}
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return false, nil
		}
		if dir == "" {
			dir = rest[:i]
		} else {
			dir += "/" + rest[:i]
		}
		rest = rest[i+1:]
		if b.nested {
			if err := b.look(dir); err != nil {
				return false, err
			}
		}
	}
}

// dirIgnored reports whether a block above the folder dir ignores it as a
// whole. It reads nested blocks only in folders above dir (which a walk has
// listed, and so stamped, already), never dir's own.
func (b *blocks) dirIgnored(dir string) (bool, error) {
	at, rest := "", dir
	for {
		if coco, ok := b.at[at]; ok && thinIgnored(rest+"/", coco) {
			return true, nil
		}
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return false, nil
		}
		if at == "" {
			at = rest[:i]
		} else {
			at += "/" + rest[:i]
		}
		rest = rest[i+1:]
		if b.nested {
			if err := b.look(at); err != nil {
				return false, err
			}
		}
	}
}

func splitDir(rel string) (dir, name string) {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i], rel[i+1:]
	}
	return "", rel
}
