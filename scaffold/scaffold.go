// Package scaffold owns the exact five files of a thin-v0.3 greenfield
// workspace, the generated agent adapters, and the variants adopt writes.
// The .gitignore is policy.GitignoreBlock itself, so what init writes and
// what the privacy policy accepts can never drift apart. This package only
// renders bytes; packages greenfield and adopt write them.
package scaffold

import (
	"path/filepath"
	"strings"

	"github.com/vivary-dev/vivary-go/policy"
)

// File is one scaffolded file.
type File struct {
	Path    string // workspace-relative, slash-separated
	Content string
}

// DefaultPreset is the preset init uses.
const DefaultPreset = "coding"

// Presets are the accepted presets.
var Presets = []string{"coding", "second-brain", "knowledge-work", "writing"}

// ProjectName is the project name init derives from the target directory.
func ProjectName(target string) string {
	b := filepath.Base(filepath.Clean(target))
	if b == "" || b == "." || b == "/" {
		return "vivary-workspace"
	}
	return b
}

// Files are the five files, then one per adapter (sorted, as CheckAdapters
// returns them), in the order init creates them.
func Files(project, preset string, adapters ...string) []File {
	files := []File{
		{".gitignore", policy.GitignoreBlock},
		{".vivary/context.md", Context(project, preset)},
		{".vivary/workspace.toml", WorkspaceTOML(preset, adapters)},
		{"AGENTS.md", AgentsFile},
		{"STATE.md", State},
	}
	for _, a := range adapters {
		files = append(files, Adapter(a))
	}
	return files
}

// WorkspaceTOML is init's .vivary/workspace.toml.
func WorkspaceTOML(preset string, adapters []string) string {
	return strings.NewReplacer("<preset>", preset, "adapters = []", "adapters = "+tomlList(adapters)).Replace(workspaceTOML)
}

// tomlList writes names as a TOML array of basic strings (they are plain
// ASCII words).
func tomlList(names []string) string {
	if len(names) == 0 {
		return "[]"
	}
	return `["` + strings.Join(names, `", "`) + `"]`
}

// State is STATE.md, byte for byte.
const State = "# State\n\nFocus:\n\nStatus:\n\nNext:\n\nOpen decisions:\n\nBlockers:\n\nChecks:\n\nUpdated:\n"

// Context is the .vivary/context.md of a workspace for project.
func Context(project, preset string) string {
	return "---\nstatus: active\npreset: " + preset + "\n---\n# " + project + " context\n\n" +
		"This workspace is a local-first governed-context layer: typed Markdown that agents read\n" +
		"through bounded, privacy-filtered producers before they act.\n\n" +
		"## Work loop\n\n" +
		"Ask a question, retrieve bounded context, act, verify the result, learn from it, and stop at a gate\n" +
		"when the next step needs a person.\n\n" +
		"## Routes\n\n" +
		"- Retrieve context on the shell with `vivary find --workspace . QUESTION`.\n" +
		"- The optional, separately installed MCP bridge `vivary-mcp --workspace project .` serves four\n" +
		"  read/query-only tools to a local MCP client.\n" +
		"- `STATE.md` is the single owner of current state.\n" +
		"- Add one record at a time with `create-vivary record`: preview the plan, check its hash, and\n" +
		"  apply only the approved plan. Never pre-seed `.vivary/records/`.\n" +
		"- `.vivary/private/` keeps private material and `.vivary/runtime/` keeps run output; neither is read.\n\n" +
		"## Gates\n\n" +
		"A person approves publishing, external writes, destructive work, credentials, any expansion of\n" +
		"authority, and anything ambiguous.\n"
}

const workspaceTOML = `version = 1
exclude = [".git", ".agents", ".vivary/private", ".vivary/runtime"]

[workspace]
contract = "thin-v0.3"
preset = "<preset>"
state = "STATE.md"
private = [".vivary/private"]
runtime = [".vivary/runtime"]
adapters = []
capabilities = []

# Optional Vivary metadata. Older thin workspaces may omit this table and keep
# the same thin-context defaults.
[workspace.vivary]
version = 1
patterns = ["thin-context"]

# Role paths are descriptions only: they grant nothing and need not exist.
[workspace.vivary.roles]
law = ["AGENTS.md", ".vivary/context.md"]
map = [".vivary/context.md"]
record = []
memory = []
boundary = [".gitignore", ".vivary/private", ".vivary/runtime"]

[base]
derive = ["id", "title"]
allow_untyped = true
optional = { tags = "string-list" }

[types.project]
folder = [".vivary", "projects"]
required = { status = "enum:idea|active|paused|shipped|archived" }
optional = { preset = "string", repo = "url", target_ship = "date" }

[types.module]
folder = "modules"
required = { project = "string", status = "enum:active|draft|blocked|archived", module_area = "string" }
optional = { related_modules = "ref-list", related_changes = "ref-list", verification = "ref-list", gates = "ref-list", source_files = "string-list", test_files = "string-list" }

[types.change]
folder = "changes"
required = { project = "string", status = "enum:planned|active|done|blocked|deferred", slice = "string" }
optional = { branch = "string", related_modules = "ref-list", related_changes = "ref-list", verification = "ref-list", gates = "ref-list" }

[types.decision]
folder = "decisions"
required = { project = "string", status = "enum:proposed|accepted|deferred|superseded", date = "date" }
optional = { supersedes = "ref", superseded_by = "ref", related_modules = "ref-list", related_changes = "ref-list", rationale = "string" }

[types.verification]
folder = "verification"
required = { project = "string", status = "enum:planned|passed|failed|blocked|deferred", target = "string" }
optional = { command = "string", evidence = "any", related_modules = "ref-list", related_changes = "ref-list" }

[types.gate]
folder = "gates"
required = { project = "string", status = "enum:open|approved|rejected|deferred", gate = "string" }
optional = { approver = "string", approved_at = "datetime", command_intent = "string", related_modules = "ref-list", related_changes = "ref-list" }
`
