package adopt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/workspace"
	"github.com/vivary-dev/vivary-go/workspace/write"
)

// Recovery operations.
const (
	opRestore       = "restore"        // put the original bytes back
	opDelete        = "delete-created" // remove a file adopt created
	opNone          = "no-op"          // the file already holds its original bytes (or is gone, as before)
	opRemoveJournal = "remove-journal"
	opRemoveTemp    = "remove-temp"      // a temp file a killed write left
	opRemoveFolder  = "remove-folder"    // a folder adopt made, if it is empty
	opForget        = "forget-in-record" // take the interrupted adoption out of the record again
)

// Step is one step of a recovery.
type Step struct {
	Path        string  `json:"path"`
	Operation   string  `json:"operation"`
	CurrentHash *string `json:"current_hash"`
	RestoreHash *string `json:"restore_hash"`
	before      []byte
	accept      []string
	expect      []byte // the bytes a remove-journal or forget step expects
}

// Recovery undoes an interrupted adoption: previewed with its own hash,
// applied only with that hash.
type Recovery struct {
	Root     string
	PlanHash string // the interrupted adoption's, or "" when only temp files are left
	Source   string // journal, marker, or temps
	Steps    []Step
	Hash     string
}

// readBack reads the current bytes at rel for a recovery decision.
func readBack(ws *workspace.Workspace, rel string) ([]byte, bool, error) {
	info, err := ws.Lstat(rel)
	switch {
	case err != nil:
		return nil, false, errors.New("recovery destination is unsafe (a folder on the way is a link): " + rel)
	case !info.Exists:
		return nil, false, nil
	case !info.IsRegular() || info.Nlink != 1:
		return nil, false, errors.New("recovery destination is unsafe (not a plain file): " + rel)
	}
	data, _, err := ws.ReadFile(rel, 2*limits.MaxFileBytes, nil)
	if err != nil {
		return nil, false, errors.New("recovery destination cannot be read: " + rel)
	}
	return data, true, nil
}

// recoverySteps decides, from the files as they are now, what undoing each
// journal action takes, last action first. A file that holds neither its
// original bytes nor what adopt wrote is the owner's newer work: it is
// never touched, and reported as a problem.
func recoverySteps(ws *workspace.Workspace, j *journal, tolerant bool) ([]Step, []string) {
	var steps []Step
	var problems []string
	for i := len(j.Actions) - 1; i >= 0; i-- {
		a := j.Actions[i]
		before, _ := a.before()
		s := Step{Path: a.Path, before: before, accept: a.accepted()}
		if before != nil {
			s.RestoreHash = str(canon.Digest(before))
		}
		data, exists, err := readBack(ws, a.Path)
		switch {
		case err != nil:
			problems = append(problems, err.Error())
			continue
		case !exists && before == nil:
			s.Operation = opNone
		case !exists:
			problems = append(problems, "recovery destination is missing: "+a.Path+"; put back your copy of it and recover again")
			continue
		case before != nil && bytes.Equal(data, before):
			s.Operation, s.CurrentHash = opNone, str(canon.Digest(data))
		case slices.Contains(s.accept, canon.Digest(data)):
			s.CurrentHash = str(canon.Digest(data))
			s.Operation = opRestore
			if before == nil {
				s.Operation = opDelete
			}
		default:
			problems = append(problems, "recovery destination changed: "+a.Path+" holds neither its original bytes nor what adopt wrote; move your version aside and recover again")
			continue
		}
		steps = append(steps, s)
	}
	return steps, problems
}

// tempFolders are where adopt's temp files can be.
var tempFolders = []string{"", ".vivary", ".vivary/runtime", ".agents/skills/vivary", ".claude/skills/vivary"}

// cleanupSteps removes adopt's leftover temp files and then the folders the
// adoption made, innermost first, if they are empty.
func cleanupSteps(ws *workspace.Workspace, dirs []string) []Step {
	var steps []Step
	for _, dir := range tempFolders {
		entries, err := ws.ReadDir(dir)
		if err != nil {
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
		for _, e := range entries {
			if tag, ok := workspace.TempTag(e.Name); ok && tag == tempTag && e.IsRegular() {
				steps = append(steps, Step{Path: path.Join(dir, e.Name), Operation: opRemoveTemp})
			}
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if info, err := ws.Lstat(dirs[i]); err == nil && info.IsDir() {
			steps = append(steps, Step{Path: dirs[i], Operation: opRemoveFolder})
		}
	}
	return steps
}

// execute carries out the steps through the root's held handles; each
// file is checked again right before it is touched.
func execute(root *write.Root, steps []Step) error {
	var errs []string
	for _, s := range steps {
		dirRel, name := path.Split(s.Path)
		dirRel = strings.TrimSuffix(dirRel, "/")
		var err error
		switch s.Operation {
		case opNone:
			continue
		case opRemoveFolder:
			err = root.RemoveEmptyDir(s.Path)
		default:
			var d *write.Dir
			if d, err = root.Dir(dirRel); err != nil {
				break
			}
			switch s.Operation {
			case opRestore:
				accept := s.accept
				_, err = d.Replace(name, s.before, 2*limits.MaxFileBytes, func(old []byte) bool { return slices.Contains(accept, canon.Digest(old)) })
			case opDelete, opRemoveJournal:
				data, info, rerr := d.Read(name, 2*limits.MaxFileBytes)
				switch {
				case rerr != nil:
					err = rerr
				case s.Operation == opDelete && !slices.Contains(s.accept, canon.Digest(data)),
					s.Operation == opRemoveJournal && !bytes.Equal(data, s.expect):
					err = write.ErrChanged
				default:
					err = d.Remove(name, info)
				}
			case opForget:
				err = forget(root, s.expect)
			case opRemoveTemp:
				info, serr := d.Stat(name)
				if serr == nil && info.IsRegular() {
					err = d.Remove(name, info)
				}
			}
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", s.Path, err))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// PreviewRecovery plans the recovery of an interrupted adoption at target
// and writes nothing.
func PreviewRecovery(ctx context.Context, target string) (*Recovery, error) {
	ws, abs, err := bind(target)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	return planRecovery(ws, abs)
}

// Recover re-plans the recovery under the write lock and carries it out if
// its hash is the approved one. Doctor does not run: the folder is back as
// it was before the adoption.
func Recover(ctx context.Context, target, approved string) (*Recovery, error) {
	ws, abs, root, done, err := locked(target, approved, "recovery apply requires --apply <hash> from the recovery preview")
	if err != nil {
		return nil, err
	}
	defer done()
	r, err := planRecovery(ws, abs)
	if err != nil {
		return nil, err
	}
	if r.Hash != approved {
		return nil, fail("recovery plan hash mismatch: approved %s, current %s; preview the recovery again", approved, r.Hash)
	}
	if err := execute(root, r.Steps); err != nil {
		return nil, fail("recovery stopped: %v; fix that and preview the recovery again", err)
	}
	return r, nil
}

// planRecovery finds what is left of an interrupted adoption (its journal,
// else the pre-journal marker in .gitignore, else only temp files) and
// plans restoring every file to its original bytes.
func planRecovery(ws *workspace.Workspace, abs string) (*Recovery, error) {
	dev, ino := ws.Identity()
	id := Identity{ws.Root(), dev, ino}
	r := &Recovery{Root: abs, Steps: []Step{}}
	j, jbytes, err := loadJournal(ws, id)
	if err != nil {
		return nil, err
	}
	if j != nil {
		r.Source = "journal"
	} else if j, err = markerJournal(ws); err != nil {
		return nil, err
	} else if j != nil {
		r.Source = "marker"
	}
	var dirs []string
	if j != nil {
		r.PlanHash = j.PlanHash
		dirs = j.Dirs
		steps, problems := recoverySteps(ws, j, false)
		if len(problems) > 0 {
			return nil, fail("recovery refused: %s", strings.Join(problems, "; "))
		}
		r.Steps = append(r.Steps, steps...)
		if jbytes != nil {
			// A kill after the adoption was recorded and before its journal
			// went: the record must not keep what the recovery undoes.
			rec, rb, err := loadRecord(ws)
			if err != nil {
				return nil, err
			}
			if rec != nil && len(rec.Adoptions) > 0 && rec.Adoptions[len(rec.Adoptions)-1].PlanHash == j.PlanHash {
				r.Steps = append(r.Steps, Step{Path: scaffold.RecordPath, Operation: opForget, CurrentHash: str(canon.Digest(rb)), expect: rb})
			}
			r.Steps = append(r.Steps, Step{Path: scaffold.JournalPath, Operation: opRemoveJournal, CurrentHash: str(canon.Digest(jbytes)), expect: jbytes})
		}
	}
	r.Steps = append(r.Steps, cleanupSteps(ws, dirs)...)
	if j == nil && len(r.Steps) > 0 {
		r.Source = "temps"
	}
	var plan any
	if r.PlanHash != "" {
		plan = r.PlanHash
	}
	r.Hash, err = approvalHash(map[string]any{"schema": "vivary.adopt-recovery-plan/v1",
		"target":                map[string]any{"canonical_path": id.Path, "device": id.Dev, "inode": id.Inode},
		"transaction_plan_hash": plan, "actions": r.Steps})
	if err != nil {
		return nil, fail("recovery plan could not be hashed")
	}
	return r, nil
}

// loadJournal reads and validates the journal, if there is one.
func loadJournal(ws *workspace.Workspace, id Identity) (*journal, []byte, error) {
	info, err := ws.Lstat(scaffold.JournalPath)
	if err != nil {
		return nil, nil, fail("the adoption journal cannot be reached: a folder on the way is a link or not a plain folder")
	}
	if !info.Exists {
		return nil, nil, nil
	}
	if !info.IsRegular() || info.Nlink != 1 || info.Size > maxJournal {
		return nil, nil, fail("the adoption journal is not a plain file within the recovery size limit (%d MiB); nothing was changed", maxJournal>>20)
	}
	b, _, err := ws.ReadFile(scaffold.JournalPath, maxJournal, nil)
	if err != nil {
		return nil, nil, fail("the adoption journal cannot be read")
	}
	j, err := decodeJournal(b)
	if err != nil {
		return nil, nil, err
	}
	if err := j.validate(id); err != nil {
		return nil, nil, err
	}
	return j, b, nil
}

// markerJournal turns a valid pre-journal marker into the one-step journal
// it stands for: the .gitignore change, and the folders on the way to the
// journal that the adoption was about to make.
func markerJournal(ws *workspace.Workspace) (*journal, error) {
	data, exists, err := readBack(ws, ".gitignore")
	if err != nil || !exists {
		return nil, nil
	}
	state, m, clean := scaffold.FindMarker(data)
	switch state {
	case scaffold.NoMarker:
		return nil, nil
	case scaffold.MalformedMarker:
		return nil, fail("the pre-journal adoption marker in .gitignore is malformed; remove that line by hand")
	}
	changed := fail("the pre-journal adoption change in .gitignore changed unexpectedly; fix .gitignore by hand (remove the marker line and the Vivary block)")
	a := jAction{Path: ".gitignore", Kind: Create, AfterHash: canon.Digest(clean), TransientHash: str(canon.Digest(data))}
	blocks := []string{policy.GitignoreBlock, policy.GitignoreBlockCocoindex}
	if m.Existed {
		if m.Size > len(clean) || canon.Digest(clean[:m.Size]) != m.Before {
			return nil, changed
		}
		before := clean[:m.Size]
		if !slices.ContainsFunc(blocks, func(b string) bool { return string(clean) == string(before)+appendText(before, b) }) {
			return nil, changed
		}
		a.Kind, a.Existed, a.Before, a.BeforeHash = Patch, true, b64(before), str(m.Before)
	} else if !slices.Contains(blocks, string(clean)) {
		return nil, changed
	}
	journalDirs := []string{".vivary", ".vivary/runtime"}
	return &journal{PlanHash: m.Plan, Dirs: journalDirs[2-m.Dirs:], Actions: []jAction{a}}, nil
}

// forget takes the last adoption out of the record whose bytes are want,
// and removes the record when no adoption is left in it.
func forget(root *write.Root, want []byte) error {
	r, err := decodeRecord(want)
	if err != nil || len(r.Adoptions) == 0 {
		return write.ErrChanged
	}
	r.Adoptions = r.Adoptions[:len(r.Adoptions)-1]
	if len(r.Adoptions) == 0 {
		return removeRecord(root, want)
	}
	_, err = putRecord(root, r, want)
	return err
}
