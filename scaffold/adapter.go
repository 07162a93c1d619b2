package scaffold

import (
	"errors"
	"slices"
	"strings"
)

// GeneratorVersion names the generation of the templates in this package.
// It is the version in an adapter's generated-by header, so a later adopt
// can tell a stale generated adapter (an older header, the same body) from
// one its owner edited. Change it whenever a template changes.
const GeneratorVersion = "0.5.0"

// Adapters maps each adapter to the file it adds, in the order they are written.
var Adapters = map[string]string{
	"agents": ".agents/skills/vivary/SKILL.md",
	"claude": ".claude/skills/vivary/SKILL.md",
}

// AdapterMaxBytes bounds a generated adapter file.
const AdapterMaxBytes = 1200

// AdapterHeaderPrefix starts the first line of every generated adapter.
const AdapterHeaderPrefix = "<!-- generated-by: create-vivary "

// CheckAdapters validates the selected adapters and returns them sorted.
func CheckAdapters(selected []string) ([]string, error) {
	var unknown []string
	for _, a := range selected {
		if _, ok := Adapters[a]; !ok {
			unknown = append(unknown, a)
		}
	}
	if len(unknown) > 0 {
		return nil, errors.New("unknown adapter(s): " + strings.Join(unknown, ", ") + "; expected agents or claude")
	}
	out := slices.Sorted(slices.Values(selected))
	if len(slices.Compact(slices.Clone(out))) != len(out) {
		return nil, errors.New("each --adapter value may be selected only once")
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// AdapterHeader is the first line of a generated adapter of version v.
func AdapterHeader(v string) string { return AdapterHeaderPrefix + v + " -->\n" }

// Adapter is the generated skill file of one adapter. It tells an agent how
// to read the workspace through the four read-only tools and how a record
// gets written: only by a person approving a plan.
func Adapter(name string) File {
	return File{Adapters[name], AdapterHeader(GeneratorVersion) + adapterBody}
}

const adapterBody = `---
name: vivary
description: Read this workspace's typed Markdown context through Vivary before acting; propose records only through the human-approved write.
---
# Vivary

Read ` + "`.vivary/context.md`" + ` and ` + "`STATE.md`" + ` first. Ask before you act:

- ` + "`vivary_find`" + `: ranked context for a question, within a token budget. Start here.
- ` + "`vivary_query`" + `: typed matches, filtered by type, path or edge.
- ` + "`vivary_check`" + `: validation findings; it repairs nothing.
- ` + "`vivary_capsule`" + `: a public Task Capsule of checkout facts for a question.

Without MCP: ` + "`vivary find --workspace . QUESTION`" + ` (also query, check, capsule).
Never read ` + "`.vivary/private/`" + ` or ` + "`.vivary/runtime/`" + `.

Never write under ` + "`.vivary/records/`" + `. To add a record, save a capsule
(` + "`vivary capsule --workspace . --json QUESTION`" + `), draft the typed source outside
the workspace, and ask the person to run ` + "`create-vivary record`" + ` with it, read the
plan, and approve its hash with ` + "`--apply`" + `.
`
