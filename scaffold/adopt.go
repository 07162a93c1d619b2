package scaffold

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/vivary-dev/vivary-go/workspace"
)

// RecordFolders maps the record folders to their starter types, in the
// order the workspace.toml lists them.
var RecordFolders = []struct{ Folder, Type string }{
	{"modules", "module"}, {"changes", "change"}, {"decisions", "decision"}, {"verification", "verification"}, {"gates", "gate"},
}

// AdoptedWorkspaceTOML is the .vivary/workspace.toml adopt writes: init's,
// except that the project type lives only in .vivary and each starter type
// becomes vivary_record_<type> in .vivary/records/<folder>, so the owner's
// own modules/, decisions/ and such folders, and any type of the same name,
// stay theirs.
func AdoptedWorkspaceTOML(preset string, adapters []string) string {
	s := WorkspaceTOML(preset, adapters)
	s = strings.Replace(s, "[types.project]\nfolder = [\".vivary\", \"projects\"]\n", "[types.project]\nfolder = [\".vivary\"]\n", 1)
	for _, rf := range RecordFolders {
		s = strings.Replace(s, "[types."+rf.Type+"]\nfolder = \""+rf.Folder+"\"\n",
			"[types.vivary_record_"+rf.Type+"]\nfolder = \".vivary/records/"+rf.Folder+"\"\n", 1)
	}
	return s
}

// The managed AGENTS.md block and its markers. AgentsFile is the whole
// AGENTS.md init writes; adopt appends AgentsBlock to an existing one.
const (
	AgentsStart = "<!-- vivary:context:start -->"
	AgentsEnd   = "<!-- vivary:context:end -->"
	AgentsBlock = AgentsStart + "\n" +
		"## Vivary context\n\n" +
		"Read `.vivary/context.md` before acting. It routes bounded project context, verification\n" +
		"receipts, privacy, current state and deliberate human gates.\n" +
		AgentsEnd + "\n"
	AgentsFile = "# AGENTS.md\n\n" + AgentsBlock
)

// The .gitignore block's markers.
const (
	GitignoreStart = "# >>> vivary private/runtime >>>"
	GitignoreEnd   = "# <<< vivary private/runtime <<<"
)

// JournalPath is where an unfinished adoption keeps its journal.
const JournalPath = ".vivary/runtime/adopt-journal.json"

// JournalLeft reports whether an unfinished adoption may have left its
// journal in ws: there is an entry at JournalPath, or it cannot be told. A
// journal is only ever written in plain folders, so where .vivary or
// .vivary/runtime is a file (or a link) there is none; that is a problem
// of its own, not an unfinished adoption.
func JournalLeft(ws *workspace.Workspace) bool {
	info, err := ws.Lstat(JournalPath)
	if errors.Is(err, workspace.ErrLink) {
		return false
	}
	return err != nil || info.Exists
}

// RecordPath is where adopt keeps its record of what each adoption created
// and appended (hashes and generated text only, none of the owner's bytes),
// so that `create-vivary adopt DIR --undo` can remove exactly that.
const RecordPath = ".vivary/runtime/adopt-record.json"

// UndoInterrupted reports whether record bytes say an undo began and did
// not finish (it marks the record before its first step and removes the
// record after its last).
func UndoInterrupted(record []byte) bool {
	var r struct {
		Undoing *string `json:"undoing"`
	}
	return json.Unmarshal(record, &r) == nil && r.Undoing != nil
}

// MarkerPrefix starts the pre-journal marker line adopt puts at the end of
// .gitignore while it makes .vivary/runtime/ private, before the journal
// (which holds backups of the owner's files) can exist.
const MarkerPrefix = "# vivary-adopt-prejournal "

// Marker is the pre-journal record: the plan, whether .gitignore existed,
// the hash and size of its bytes before, and how many folders on the way to
// the journal (.vivary, .vivary/runtime) the adoption makes.
type Marker struct {
	Plan    string
	Existed bool
	Before  string // "none" or sha256:<hex>
	Size    int
	Dirs    int
}

// Line renders the marker as the last line of .gitignore.
func (m Marker) Line() string {
	e := 0
	if m.Existed {
		e = 1
	}
	return fmt.Sprintf("%splan=%s existed=%d before=%s size=%d dirs=%d\n", MarkerPrefix, m.Plan, e, m.Before, m.Size, m.Dirs)
}

var markerRe = regexp.MustCompile(`^# vivary-adopt-prejournal plan=(sha256:[0-9a-f]{64}) existed=([01]) before=(none|sha256:[0-9a-f]{64}) size=(0|[1-9][0-9]{0,8}) dirs=([012])\n$`)

// MarkerState says what FindMarker found.
type MarkerState int

const (
	NoMarker MarkerState = iota
	ValidMarker
	MalformedMarker
)

// FindMarker looks for the pre-journal marker in .gitignore bytes. A valid
// marker is one well-formed line at the very end, and the prefix nowhere
// else; the prefix anywhere else is malformed. It returns the bytes before
// the marker line.
func FindMarker(data []byte) (MarkerState, Marker, []byte) {
	n := bytes.Count(data, []byte(MarkerPrefix))
	if n == 0 {
		return NoMarker, Marker{}, data
	}
	start := 0
	if len(data) > 0 {
		start = bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	}
	m := markerRe.FindSubmatch(data[start:])
	if n != 1 || m == nil {
		return MalformedMarker, Marker{}, nil
	}
	size, _ := strconv.Atoi(string(m[4]))
	dirs, _ := strconv.Atoi(string(m[5]))
	mk := Marker{Plan: string(m[1]), Existed: m[2][0] == '1', Before: string(m[3]), Size: size, Dirs: dirs}
	if !mk.Existed && (mk.Before != "none" || mk.Size != 0) || mk.Existed && mk.Before == "none" {
		return MalformedMarker, Marker{}, nil
	}
	return ValidMarker, mk, data[:start]
}
