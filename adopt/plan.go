package adopt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Preview plans the adoption of target and writes nothing.
func Preview(ctx context.Context, target string, opt Options) (*Plan, error) {
	ws, abs, err := bind(target)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	return plan(ctx, ws, abs, opt)
}

// bind opens the target: an existing directory, not a link.
func bind(target string) (*workspace.Workspace, string, error) {
	abs, err := filepath.Abs(target)
	if err != nil {
		return nil, "", fail("adopt target cannot be made absolute")
	}
	ws, err := workspace.Bind(abs)
	if err != nil {
		var re *reason.Error
		msg := "it cannot be opened"
		if errors.As(err, &re) && re.Msg != "" {
			msg = re.Msg
		}
		return nil, "", fail("adopt target must be an existing directory: %s", msg)
	}
	return ws, abs, nil
}

// planner builds one plan.
type planner struct {
	ws      *workspace.Workspace
	p       *Plan
	project string
	cfg     *policy.Config // the composed type policy the plan leads to, if valid
	coco    bool           // the cocoindex-code capability: its .gitignore block
	caps    []string
}

func (pl *planner) conflict(rel, format string, a ...any) {
	pl.p.Conflicts = append(pl.p.Conflicts, Conflict{rel, fmt.Sprintf(format, a...)})
}

func (pl *planner) create(rel string, content string) {
	pl.p.Actions = append(pl.p.Actions, Action{Path: rel, Kind: Create, after: []byte(content)})
}

func (pl *planner) keep(rel string, data []byte) {
	pl.p.Kept = append(pl.p.Kept, Kept{rel, canon.Digest(data)})
}

// file is what the plan found at one path.
type file struct {
	exists bool
	data   []byte
	bad    string // why it cannot be planned on, if it cannot
}

// read inspects rel without following a link anywhere on the way.
func (pl *planner) read(rel string) file {
	info, err := pl.ws.Lstat(rel)
	switch {
	case errors.Is(err, workspace.ErrLink):
		return file{exists: true, bad: "a folder on the way is a link or not a plain folder"}
	case err != nil:
		return file{exists: true, bad: "it cannot be inspected"}
	case !info.Exists:
		return file{}
	case !info.IsRegular():
		return file{exists: true, bad: "destination is not a regular file"}
	case info.Nlink != 1:
		return file{exists: true, bad: "it has other hard links, which adopt would split; make it a plain single file"}
	case info.Size > limits.MaxFileBytes:
		return file{exists: true, bad: "it is larger than 1 MiB"}
	}
	data, _, err := pl.ws.ReadFile(rel, limits.MaxFileBytes, nil)
	if err != nil {
		return file{exists: true, bad: "it cannot be read"}
	}
	return file{exists: true, data: data}
}

func plan(ctx context.Context, ws *workspace.Workspace, abs string, opt Options) (*Plan, error) {
	dev, ino := ws.Identity()
	p := &Plan{Root: abs, identity: Identity{ws.Root(), dev, ino}, Kept: []Kept{}, PolicyInputs: []Kept{}, Conflicts: []Conflict{}}
	mode, err := policy.WorkspaceMode(ctx, ws)
	if err != nil {
		return nil, fail("adopt cannot tell which ignore rules govern the folder: %s", message(err))
	}
	p.IgnoreMode = mode
	sv, err := walk(ws)
	if err != nil {
		return nil, err
	}
	p.Inventory = sv.inventory
	pl := &planner{ws: ws, p: p, project: scaffold.ProjectName(ws.Root())}
	if info, err := ws.Lstat(".vivary"); err != nil || info.Exists && !info.IsDir() {
		pl.conflict(".vivary", ".vivary must be a regular directory")
	}
	if info, err := ws.Lstat(scaffold.JournalPath); err != nil || info.Exists {
		pl.conflict(scaffold.JournalPath, "an unfinished adoption journal exists; run `create-vivary adopt DIR --recover` to preview restoring the files, and apply that first")
	}
	if err := pl.config(opt, sv); err != nil {
		return nil, err
	}
	pl.context()
	pl.state()
	pl.agents()
	if err := pl.gitignore(ctx, sv); err != nil {
		return nil, err
	}
	pl.adapters()
	if err := pl.notes(ctx, sv); err != nil {
		return nil, err
	}
	p.sortAndDirs(ws)
	p.caps = pl.caps
	if p.Hash, err = p.hash(); err != nil {
		return nil, fail("adopt plan could not be hashed")
	}
	return p, nil
}

func message(err error) string {
	var re *reason.Error
	if errors.As(err, &re) && re.Msg != "" {
		return re.Msg
	}
	return string(reason.Of(err))
}

// config decides the preset and adapters and plans .vivary/workspace.toml:
// a valid thin config is kept, a missing one created in the adopted form.
// A root tropo.toml must compose with it (tighten only).
func (pl *planner) config(opt Options, sv *survey) error {
	const rel = policy.ThinConfigPath
	cur := pl.read(rel)
	var declared *policy.Config
	var raw map[string]any
	var cfgErr error
	if cur.exists && cur.bad == "" {
		if raw, cfgErr = policy.ParseTOML(cur.data); cfgErr == nil {
			declared, _, cfgErr = policy.Compose([]map[string]any{raw}, true)
		}
	}
	p := pl.p
	switch {
	case opt.Preset != "":
		if !slices.Contains(scaffold.Presets, opt.Preset) {
			return fail("unknown preset; choose one of %s", strings.Join(scaffold.Presets, ", "))
		}
		p.Preset, p.PresetReason = opt.Preset, "explicit --preset "+opt.Preset
	case declared != nil:
		p.Preset, p.PresetReason = declared.Preset, "declared in "+rel
	default:
		p.Preset, p.PresetReason = sv.preset()
	}
	adapters := opt.Adapters
	if adapters == nil && declared != nil {
		adapters = declared.Adapters
	}
	var err error
	if p.Adapters, err = scaffold.CheckAdapters(adapters); err != nil {
		return fail("%v", err)
	}
	pl.caps = []string{}
	valid := false
	switch {
	case cur.bad != "":
		pl.conflict(rel, "%s", cur.bad)
	case !cur.exists:
		content := scaffold.AdoptedWorkspaceTOML(p.Preset, p.Adapters)
		pl.create(rel, content)
		raw, _ = policy.ParseTOML([]byte(content))
		valid = true
	case cfgErr != nil:
		pl.conflict(rel, "the existing workspace policy is not a valid thin-v0.3 config (%s); fix it or move it away", message(cfgErr))
	case declared.Preset != p.Preset:
		pl.conflict(rel, "it declares preset %s; pass --preset %s or edit it", declared.Preset, declared.Preset)
		valid = true // a valid policy all the same: the context can be checked against it
	case !slices.Equal(slices.Sorted(slices.Values(declared.Adapters)), p.Adapters):
		pl.conflict(rel, "it lists adapters [%s]; pass the same --adapter flags or edit it", strings.Join(declared.Adapters, ", "))
		valid = true
	default:
		pl.keep(rel, cur.data)
		valid = true
		pl.caps = append(pl.caps, declared.Capabilities...)
		pl.coco = slices.Contains(declared.Capabilities, "cocoindex-code")
	}
	layers := []map[string]any{raw}
	if overlay := pl.read(policy.OverlayPath); overlay.exists {
		if overlay.bad != "" {
			pl.conflict(policy.OverlayPath, "%s", overlay.bad)
			return nil
		}
		p.PolicyInputs = append(p.PolicyInputs, Kept{policy.OverlayPath, canon.Digest(overlay.data)})
		o, err := policy.ParseTOML(overlay.data)
		if err != nil {
			pl.conflict(policy.OverlayPath, "the root tropo.toml is not valid TOML; fix it")
			return nil
		}
		layers = append(layers, o)
	}
	if !valid {
		return nil
	}
	cfg, _, err := policy.Compose(layers, true)
	if err != nil {
		pl.conflict(policy.OverlayPath, "the root tropo.toml cannot compose with the workspace policy (%s); it may only tighten it", message(err))
		return nil
	}
	pl.cfg = cfg
	return nil
}

// context plans .vivary/context.md: kept when it is a project document
// with no finding under the planned policy.
func (pl *planner) context() {
	const rel = ".vivary/context.md"
	cur := pl.read(rel)
	switch {
	case cur.bad != "":
		pl.conflict(rel, "%s", cur.bad)
	case !cur.exists:
		pl.create(rel, scaffold.Context(pl.project, pl.p.Preset))
	case pl.cfg == nil:
		pl.conflict(rel, "it cannot be checked until the workspace policy is valid")
	default:
		d := graph.Analyze(pl.cfg, rel, pl.project, string(cur.data), 0, 0)
		switch {
		case d.Type != "project":
			pl.conflict(rel, "the existing context is not a thin-v0.3 project document; fix it or move it away")
		case len(d.Findings) > 0:
			f := d.Findings[0]
			pl.conflict(rel, "the existing context has findings (line %d: %s %s); fix them or move it away", f.Line, f.Code, f.Message)
		default:
			pl.keep(rel, cur.data)
		}
	}
}

// state plans STATE.md: any existing bytes are the owner's and kept.
func (pl *planner) state() {
	cur := pl.read("STATE.md")
	switch {
	case cur.bad != "":
		pl.conflict("STATE.md", "%s", cur.bad)
	case !cur.exists:
		pl.create("STATE.md", scaffold.State)
	default:
		pl.keep("STATE.md", cur.data)
	}
}

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

// lessPath orders paths component by component.
func lessPath(a, b string) bool {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/")) < 0
}

// sortAndDirs puts the actions in apply order (.gitignore first, so private
// paths are ignored before anything else exists) and finds the folders they
// need that do not exist yet.
func (p *Plan) sortAndDirs(ws *workspace.Workspace) {
	slices.SortFunc(p.Actions, func(a, b Action) int {
		switch {
		case a.Path == b.Path:
			return 0
		case a.Path == ".gitignore":
			return -1
		case b.Path == ".gitignore":
			return 1
		}
		return strings.Compare(a.Path, b.Path)
	})
	slices.SortFunc(p.Kept, func(a, b Kept) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(p.Conflicts, func(a, b Conflict) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	seen := map[string]bool{}
	for _, a := range p.Actions {
		var chain []string
		for d := path.Dir(a.Path); d != "."; d = path.Dir(d) {
			chain = append([]string{d}, chain...)
		}
		for _, d := range chain {
			if seen[d] {
				continue
			}
			seen[d] = true
			if info, err := ws.Lstat(d); err == nil && !info.Exists {
				p.dirs = append(p.dirs, d)
			}
		}
	}
	slices.SortStableFunc(p.dirs, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
}

// approval is what the hash binds: the target's identity, the options, the
// bytes of every file the plan creates, patches, replaces or keeps, the
// type-policy inputs, and the ignore mode that decided the .gitignore plan.
// The owner's other notes are not bound: editing one does not void the
// plan (Doctor after apply still checks the whole workspace).
func (p *Plan) approval() map[string]any {
	rows := func(get func(Action) (map[string]any, bool)) []any {
		out := []any{}
		sorted := slices.Clone(p.Actions)
		slices.SortFunc(sorted, func(a, b Action) int {
			if lessPath(a.Path, b.Path) {
				return -1
			}
			return 1
		})
		for _, a := range sorted {
			if m, ok := get(a); ok {
				out = append(out, m)
			}
		}
		return out
	}
	kept := func(ks []Kept) []any {
		out := []any{}
		for _, k := range ks {
			out = append(out, map[string]any{"path": k.Path, "content_hash": k.ContentHash})
		}
		return out
	}
	caps := p.caps
	if caps == nil {
		caps = []string{}
	}
	return map[string]any{
		"contract": policy.ThinContract,
		"target":   map[string]any{"canonical_path": p.identity.Path, "device": p.identity.Dev, "inode": p.identity.Inode},
		"preset":   p.Preset, "adapters": p.Adapters, "capabilities": caps, "ignore_mode": string(p.IgnoreMode),
		"creates": rows(func(a Action) (map[string]any, bool) {
			return map[string]any{"path": a.Path, "content_hash": canon.Digest(a.after)}, a.Kind == Create
		}),
		"patches": rows(func(a Action) (map[string]any, bool) {
			return map[string]any{"path": a.Path, "before_hash": canon.Digest(a.before), "anchor": "eof", "inserted_text": a.Inserted}, a.Kind == Patch
		}),
		"adapter_replacements": rows(func(a Action) (map[string]any, bool) {
			return map[string]any{"path": a.Path, "before_hash": canon.Digest(a.before), "content_hash": canon.Digest(a.after)}, a.Kind == Replace
		}),
		"kept":          kept(p.Kept),
		"policy_inputs": kept(p.PolicyInputs),
	}
}

// hash is the plan hash: the approval's.
func (p *Plan) hash() (string, error) {
	return approvalHash(p.approval())
}

// approvalHash is "sha256:" + the digest of v dumped as Python would
// (sorted keys, compact, ASCII-escaped).
func approvalHash(v any) (string, error) {
	b, err := canon.Encode(v, canon.Options{Order: canon.CodePoint, ASCII: true})
	if err != nil {
		return "", err
	}
	return canon.Digest(b), nil
}
