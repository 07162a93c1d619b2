package adopt

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/workspace"
	"github.com/vivary-dev/vivary-go/workspace/write"
)

const (
	recordSchema = "vivary.adopt-record/v1"
	// maxRecord bounds the record; an adoption's entry is a few KiB.
	maxRecord = 256 << 10
	// maxAdoptions bounds the adoptions one record lists.
	maxAdoptions = 64
)

// record is .vivary/runtime/adopt-record.json (scaffold.RecordPath): what
// every applied adoption of this folder created, appended and replaced, so
// that an undo removes exactly that. It holds hashes, sizes and generated
// text, never the owner's bytes, and lives in the runtime folder the block
// keeps out of every read and every commit.
type record struct {
	Schema string `json:"schema"`
	// Undoing is the approved undo's hash while an undo runs: written
	// before its first step, so Doctor can tell a half-undone folder.
	Undoing   *string    `json:"undoing,omitempty"`
	Adoptions []adoption `json:"adoptions"`
}

// adoption is one applied plan: its options (which decide the bytes adopt
// generated), the folders it made and the files it wrote, in apply order.
type adoption struct {
	PlanHash string    `json:"plan_hash"`
	Project  string    `json:"project"`
	Preset   string    `json:"preset"`
	Adapters []string  `json:"adapters"`
	Caps     []string  `json:"capabilities"`
	Dirs     []string  `json:"made_dirs"`
	Actions  []rAction `json:"actions"`
}

// rAction is one file an adoption wrote: a create's and a replacement's
// bytes are the generator's, a patch's are the owner's before plus the
// inserted text (a blank line and the block).
type rAction struct {
	Path       string  `json:"path"`
	Kind       string  `json:"kind"`
	AfterHash  string  `json:"after_hash"`
	BeforeHash *string `json:"before_hash"`
	Inserted   *string `json:"inserted_text"`
}

// entry is what the record keeps of an applied plan.
func (t *txn) entry() adoption {
	e := adoption{PlanHash: t.p.Hash, Project: scaffold.ProjectName(t.p.identity.Path), Preset: t.p.Preset,
		Adapters: t.p.Adapters, Caps: t.p.caps, Dirs: t.j.Dirs}
	if e.Adapters == nil {
		e.Adapters = []string{}
	}
	if e.Caps == nil {
		e.Caps = []string{}
	}
	if e.Dirs == nil {
		e.Dirs = []string{}
	}
	for _, a := range t.p.Actions {
		ra := rAction{Path: a.Path, Kind: a.Kind, AfterHash: a.AfterHash()}
		if a.before != nil {
			ra.BeforeHash = str(a.BeforeHash())
		}
		if a.Kind == Patch {
			ra.Inserted = str(a.Inserted)
		}
		e.Actions = append(e.Actions, ra)
	}
	return e
}

func (r *record) encode() ([]byte, error) { return encodeJSON(r) }

// loadRecord reads and validates the record: nil when there is none.
func loadRecord(ws *workspace.Workspace) (*record, []byte, error) {
	info, err := ws.Lstat(scaffold.RecordPath)
	if err != nil {
		return nil, nil, fail("the adoption record cannot be reached: a folder on the way is a link or not a plain folder")
	}
	if !info.Exists {
		return nil, nil, nil
	}
	if !info.IsRegular() || info.Nlink != 1 || info.Size > maxRecord {
		return nil, nil, fail("the adoption record (%s) is not a plain file within %d KiB; nothing was changed", scaffold.RecordPath, maxRecord>>10)
	}
	b, _, err := ws.ReadFile(scaffold.RecordPath, maxRecord, nil)
	if err != nil {
		return nil, nil, fail("the adoption record (%s) cannot be read", scaffold.RecordPath)
	}
	r, err := decodeRecord(b)
	if err != nil {
		return nil, nil, err
	}
	return r, b, nil
}

// decodeRecord parses record bytes strictly and checks that every row is
// something this create-vivary's adopt writes: a path it writes, created
// or replaced bytes its generator makes for the recorded options, a patch
// that is the canonical append of a block. So a forged record can at most
// make an undo remove generated files and managed blocks, never a note.
func decodeRecord(b []byte) (*record, error) {
	bad := func(why string) error {
		return fail("the adoption record (%s) is not valid: %s; nothing was changed. Remove the files adopt made by hand, or restore the record from a backup", scaffold.RecordPath, why)
	}
	if _, err := canon.DecodeStrict(b); err != nil {
		return nil, bad("it is not one JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r record
	if err := dec.Decode(&r); err != nil {
		return nil, bad("it is not one JSON object of the record's shape")
	}
	if r.Schema != recordSchema {
		return nil, bad("an unknown schema")
	}
	if len(r.Adoptions) > maxAdoptions {
		return nil, bad("too many adoptions")
	}
	if r.Undoing != nil && !hashRe.MatchString(*r.Undoing) {
		return nil, bad("a malformed undo hash")
	}
	for _, e := range r.Adoptions {
		if !hashRe.MatchString(e.PlanHash) || !slices.Contains(scaffold.Presets, e.Preset) || len(e.Actions) > maxActions {
			return nil, bad("a malformed adoption")
		}
		if checked, err := scaffold.CheckAdapters(e.Adapters); err != nil || !slices.Equal(checked, e.Adapters) {
			return nil, bad("unknown or unsorted adapters")
		}
		for _, c := range e.Caps {
			if c != "cocoindex-code" {
				return nil, bad("an unknown capability")
			}
		}
		for _, d := range e.Dirs {
			if !madeDirsAllowed[d] {
				return nil, bad("a folder adopt never makes")
			}
		}
		seen := map[string]bool{}
		for _, a := range e.Actions {
			if seen[a.Path] {
				return nil, bad("a file listed twice in one adoption")
			}
			seen[a.Path] = true
			want, ok := expectedFor(a.Path, e.Project, e.Preset, e.Adapters, e.Caps)
			if !ok {
				return nil, bad("a file adopt never writes")
			}
			switch a.Kind {
			case Create, Replace:
				if a.AfterHash != canon.Digest([]byte(want)) || a.Inserted != nil || (a.Kind == Replace) != (a.BeforeHash != nil) {
					return nil, bad("a created or replaced file that is not what adopt generates")
				}
			case Patch:
				block := scaffold.AgentsBlock
				if a.Path == ".gitignore" {
					block = gitignoreBlock(e.Caps)
				} else if a.Path != "AGENTS.md" {
					return nil, bad("a patch of a file adopt never patches")
				}
				if a.Inserted == nil || a.BeforeHash == nil || !hashRe.MatchString(*a.BeforeHash) || !hashRe.MatchString(a.AfterHash) ||
					!slices.Contains([]string{block, "\n" + block, "\n\n" + block}, *a.Inserted) {
					return nil, bad("a patch that is not the canonical append")
				}
			default:
				return nil, bad("an unknown kind of step")
			}
		}
	}
	return &r, nil
}

// putRecord writes r in place of the record whose bytes were prev (nil: no
// record yet) through the root's held handles, and returns the bytes now
// on disk.
func putRecord(root *write.Root, r *record, prev []byte) ([]byte, error) {
	b, err := r.encode()
	if err != nil {
		return nil, err
	}
	if len(b) > maxRecord {
		return nil, fail("the adoption record would pass %d KiB (%d adoptions): undo the earlier ones first", maxRecord>>10, len(r.Adoptions))
	}
	folder, name := path.Split(scaffold.RecordPath)
	d, _, err := root.MkdirAll(path.Clean(folder))
	if err != nil {
		return nil, err
	}
	var written workspace.Info
	if prev == nil {
		written, err = d.Create(name, b)
	} else {
		written, err = d.Replace(name, b, maxRecord, func(old []byte) bool { return bytes.Equal(old, prev) })
	}
	if err != nil {
		return nil, err
	}
	return b, root.Verify(scaffold.RecordPath, written)
}

// removeRecord removes the record if it still holds want.
func removeRecord(root *write.Root, want []byte) error {
	folder, name := path.Split(scaffold.RecordPath)
	d, err := root.Dir(path.Clean(folder))
	if err != nil {
		return err
	}
	data, info, err := d.Read(name, maxRecord)
	if err != nil {
		return err
	}
	if !bytes.Equal(data, want) {
		return write.ErrChanged
	}
	return d.Remove(name, info)
}
