package adopt

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/scaffold"
)

// appendText is what a patch appends to old: the block, after a blank line
// when old has text of its own.
func appendText(old []byte, block string) string {
	switch {
	case len(old) == 0:
		return block
	case old[len(old)-1] == '\n' || old[len(old)-1] == '\r':
		return "\n" + block
	}
	return "\n\n" + block
}

func (pl *planner) patch(rel string, old []byte, block string) {
	ins := appendText(old, block)
	pl.p.Actions = append(pl.p.Actions, Action{Path: rel, Kind: Patch, Inserted: ins, before: old,
		after: append(append([]byte(nil), old...), ins...)})
}

// agents plans AGENTS.md: created whole, the block appended, or kept when
// it already holds the block once.
func (pl *planner) agents() {
	const rel = "AGENTS.md"
	cur := pl.read(rel)
	switch {
	case cur.bad != "":
		pl.conflict(rel, "%s", cur.bad)
	case !cur.exists:
		pl.create(rel, scaffold.AgentsFile)
	case !utf8.Valid(cur.data):
		pl.conflict(rel, "AGENTS.md is not UTF-8")
	default:
		starts, ends := bytes.Count(cur.data, []byte(scaffold.AgentsStart)), bytes.Count(cur.data, []byte(scaffold.AgentsEnd))
		switch {
		case starts == 1 && ends == 1 && bytes.Contains(cur.data, []byte(strings.TrimRight(scaffold.AgentsBlock, "\n"))):
			pl.keep(rel, cur.data)
		case starts == 0 && ends == 0:
			pl.patch(rel, cur.data, scaffold.AgentsBlock)
		default:
			pl.conflict(rel, "AGENTS.md has a duplicate or malformed Vivary block; remove the vivary:context marker lines or restore the block between them")
		}
	}
}

// Probes: each rule of the block and a path it must keep private.
var probes = []struct{ rule, path string }{
	{".vivary/private/", ".vivary/private/secret.md"},
	{".vivary/runtime/", ".vivary/runtime/adopt-journal.json"},
	{"*.vivary-tmp", ".vivary-output.vivary-tmp"},
}

// gitignore plans the root .gitignore. In a Git worktree root the block is
// appended and Git's rules stay authoritative. Elsewhere (outside Git, or
// nested in a larger worktree) the producers accept only the exact block,
// so a .gitignore with rules of its own, or (outside Git) a nested one, is
// a conflict with its fix rather than a workspace that refuses every read.
func (pl *planner) gitignore(ctx context.Context, sv *survey) error {
	const rel = ".gitignore"
	block := policy.GitignoreBlock
	if pl.coco {
		block = policy.GitignoreBlockCocoindex
	}
	cur := pl.read(rel)
	if cur.exists && cur.bad == "" {
		switch state, _, _ := scaffold.FindMarker(cur.data); state {
		case scaffold.ValidMarker:
			pl.conflict(rel, "an interrupted adoption left its pre-journal marker here; run `create-vivary adopt DIR --recover` to preview restoring the files, and apply that first")
			return nil
		case scaffold.MalformedMarker:
			pl.conflict(rel, "it holds a malformed pre-journal adoption marker; remove the line that starts with %q", strings.TrimSpace(scaffold.MarkerPrefix))
			return nil
		}
	}
	exact := cur.exists && (string(cur.data) == policy.GitignoreBlock || string(cur.data) == policy.GitignoreBlockCocoindex)
	switch {
	case cur.bad != "":
		pl.conflict(rel, "%s", cur.bad)
	case !utf8.Valid(cur.data):
		pl.conflict(rel, ".gitignore is not UTF-8")
	case !cur.exists:
		pl.create(rel, block)
	case exact:
		pl.keep(rel, cur.data)
	case pl.p.IgnoreMode != policy.ModeGit && len(cur.data) == 0:
		pl.patch(rel, cur.data, block)
	case pl.p.IgnoreMode == policy.ModeThin:
		pl.conflict(rel, "this folder's .gitignore has rules of its own; outside Git only the exact block create-vivary writes is accepted: run `git init` first so Git's rules apply, or remove them")
	case pl.p.IgnoreMode == policy.ModeNested:
		pl.conflict(rel, "this folder lies inside a larger Git worktree, so its own .gitignore must be exactly the block create-vivary writes: move its rules to the enclosing repository's .gitignore, run `git init` here, or remove them")
	default:
		starts, ends := bytes.Count(cur.data, []byte(scaffold.GitignoreStart)), bytes.Count(cur.data, []byte(scaffold.GitignoreEnd))
		switch {
		case starts == 1 && ends == 1 && (bytes.Contains(cur.data, []byte(policy.GitignoreBlock)) || bytes.Contains(cur.data, []byte(policy.GitignoreBlockCocoindex))):
			pl.keep(rel, cur.data)
			if err := pl.probe(ctx); err != nil {
				return err
			}
		case starts == 0 && ends == 0:
			pl.patch(rel, cur.data, block)
		default:
			pl.conflict(rel, ".gitignore has a duplicate or malformed Vivary block; remove the vivary private/runtime marker lines or restore the block between them")
		}
	}
	switch pl.p.IgnoreMode {
	case policy.ModeThin:
		for _, f := range policy.ForeignIgnoreFiles(pl.ws, sv.ignoreFiles) {
			pl.conflict(f, "a nested .gitignore with rules of its own; outside Git only exact copies of the block create-vivary writes are honoured: run `git init` first so Git's rules apply, or remove it")
		}
	case policy.ModeGit:
		if info, err := pl.ws.Lstat(".vivary/.gitignore"); err != nil || info.Exists {
			pl.conflict(".vivary/.gitignore", "a .gitignore inside .vivary can re-include its private and runtime folders; remove it")
		}
	}
	return nil
}

// probe asks Git whether a kept .gitignore already keeps every private path
// out: rules after the block could re-include one.
func (pl *planner) probe(ctx context.Context) error {
	paths := make([]string, len(probes))
	for i, pr := range probes {
		paths[i] = pr.path
	}
	ignored, err := policy.IgnoredEach(ctx, pl.ws, paths)
	if err != nil {
		return fail("adopt cannot ask Git about the folder's ignore rules: %s", message(err))
	}
	for _, pr := range probes {
		if !ignored[pr.path] {
			pl.conflict(".gitignore", "its rules leave %s committable (a rule after the Vivary block re-includes it); move that rule above the block", pr.rule)
		}
	}
	return nil
}

// adapters plans each selected adapter: created, kept when identical,
// replaced when it is an older generation of the same text, and a conflict
// when its owner changed it.
func (pl *planner) adapters() {
	for _, name := range pl.p.Adapters {
		want := scaffold.Adapter(name)
		cur := pl.read(want.Path)
		switch {
		case cur.bad != "":
			pl.conflict(want.Path, "adapter destination is not a regular file (%s)", cur.bad)
		case !cur.exists:
			pl.create(want.Path, want.Content)
		case string(cur.data) == want.Content:
			pl.keep(want.Path, cur.data)
		default:
			first, rest, _ := strings.Cut(string(cur.data), "\n")
			_, wantRest, _ := strings.Cut(want.Content, "\n")
			v, ok := strings.CutPrefix(first, scaffold.AdapterHeaderPrefix)
			v, ok2 := strings.CutSuffix(v, " -->")
			if ok && ok2 && rest == wantRest && olderVersion(v, scaffold.GeneratorVersion) {
				pl.p.Actions = append(pl.p.Actions, Action{Path: want.Path, Kind: Replace, before: cur.data, after: []byte(want.Content)})
				continue
			}
			pl.conflict(want.Path, "adapter content is user-owned (edited, or generated by another create-vivary); keep it and drop --adapter %s, or remove it", name)
		}
	}
}

// olderVersion reports whether the dotted version a is below b.
func olderVersion(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		var err error
		if i < len(as) {
			if x, err = strconv.Atoi(as[i]); err != nil {
				return false
			}
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
