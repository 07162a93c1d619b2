package adopt

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
		return file{exists: true, bad: fmt.Sprintf("it is larger than %d MiB", limits.MaxFileBytes>>20)}
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
	if scaffold.JournalLeft(ws) {
		pl.conflict(scaffold.JournalPath, "an unfinished adoption journal exists; run `create-vivary adopt DIR --recover` to preview restoring the files, and apply that first")
	}
	if rec, _, err := loadRecord(ws); err != nil {
		pl.conflict(scaffold.RecordPath, "%v", err)
	} else if rec != nil && rec.Undoing != nil {
		pl.conflict(scaffold.RecordPath, "an undo of this folder's adoption was interrupted; run `create-vivary adopt DIR --undo` to preview finishing it, and apply that first")
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
	if err := pl.notes(ctx); err != nil {
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
