// Package adopt owns `create-vivary adopt`: it turns an existing folder (a
// folder of notes, a Git checkout, a thin workspace) into a thin-v0.3
// workspace. It only creates the missing contract files, appends one managed
// block to the end of AGENTS.md and .gitignore, and replaces stale generated
// adapters; it never moves, deletes or rewrites anything else of the owner's.
//
// A preview (Plan) reads and writes nothing, and returns the plan and its
// hash. Apply recomputes the plan under the workspace's write lock and
// writes only if its hash is the one a person approved. It writes through
// package write's held, no-follow folder handles, the .gitignore change
// first (with a pre-journal marker line, so the private runtime folder is
// ignored before the journal that backs up the owner's bytes exists), then a
// journal in .vivary/runtime/ updated after every step; Doctor runs after,
// and any failure restores every file whose bytes are still what adopt
// wrote. A process killed at any step leaves a journal or marker that
// Doctor reports and that Recover, previewed with its own hash, undoes.
package adopt

import (
	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
)

// fail is this writer's refusal: a reason.Refusal, in words for the person
// at the terminal.
func fail(format string, a ...any) error { return reason.Refuse(format, a...) }

// Options are the choices of one adopt.
type Options struct {
	// Preset is "" to keep the one a valid workspace.toml declares, or else
	// infer it from the folder's files.
	Preset string
	// Adapters are the generated adapters to have; nil keeps the ones a
	// valid workspace.toml lists.
	Adapters []string
}

// Action kinds.
const (
	Create  = "create"  // a missing contract file or adapter
	Patch   = "patch"   // the managed block appended to AGENTS.md or .gitignore
	Replace = "replace" // a stale generated adapter
)

// Action is one file the plan writes.
type Action struct {
	Path     string `json:"path"`
	Kind     string `json:"kind"`
	Inserted string `json:"-"` // a patch's appended text
	before   []byte // nil for a create
	after    []byte
}

// BeforeHash is the hash of the bytes a patch or replacement changes.
func (a Action) BeforeHash() string { return canon.Digest(a.before) }

// AfterHash is the hash of the bytes the action writes.
func (a Action) AfterHash() string { return canon.Digest(a.after) }

// Kept is a file the plan leaves as it is, bound by its hash.
type Kept struct {
	Path        string `json:"path"`
	ContentHash string `json:"content_hash"`
}

// Conflict is something to change before the plan can apply.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Inventory counts the owner's files (outside dot-folders and build output).
type Inventory struct {
	Markdown    int `json:"existing_markdown"`
	NonMarkdown int `json:"existing_non_markdown"`
}

// Identity is the target the plan is bound to.
type Identity struct {
	Path  string `json:"canonical_path"`
	Dev   uint64 `json:"device"`
	Inode uint64 `json:"inode"`
}

// Plan is what adopt will do to one folder, and its hash.
type Plan struct {
	Root         string      // the absolute target
	Preset       string      //
	PresetReason string      //
	Adapters     []string    // sorted
	IgnoreMode   policy.Mode // git, nested or thin: decides what the .gitignore may hold
	Actions      []Action    // .gitignore first, then by path
	Kept         []Kept      // sorted by path
	PolicyInputs []Kept      // the type-policy files besides the plan's own (tropo.toml)
	Conflicts    []Conflict  // sorted by path
	Inventory    Inventory
	Hash         string
	identity     Identity
	caps         []string // capabilities a kept config declares
	dirs         []string // folders the actions need that do not exist, shallow first
}

// Applicable reports a plan without conflicts.
func (p *Plan) Applicable() bool { return len(p.Conflicts) == 0 }
