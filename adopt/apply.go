package adopt

import (
	"bytes"
	"context"
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/doctor"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/workspace"
	"github.com/vivary-dev/vivary-go/workspace/write"
)

// tempTag names adopt's temp files: .adopt-<n>.vivary-tmp.
const tempTag = "adopt"

// Apply recomputes the plan under the workspace's write lock and, if its
// hash is the approved one and it has no conflict, carries it out (see the
// package doc). It returns the plan and Doctor's report.
func Apply(ctx context.Context, target string, opt Options, approved string) (*Plan, *doctor.Report, error) {
	ws, abs, root, done, err := locked(target, approved, "adopt apply requires --apply <hash> from the approved preview")
	if err != nil {
		return nil, nil, err
	}
	defer done()
	p, err := plan(ctx, ws, abs, opt)
	if err != nil {
		return nil, nil, err
	}
	if p.Hash != approved {
		return nil, nil, fail("adopt plan hash mismatch: approved %s, current %s; preview again and approve the plan it shows", approved, p.Hash)
	}
	if !p.Applicable() {
		var paths []string
		for _, c := range p.Conflicts {
			paths = append(paths, c.Path)
		}
		return nil, nil, fail("adoption plan has conflicts: %s; preview again to see how to fix them", strings.Join(slices.Compact(paths), ", "))
	}
	if len(p.Actions) == 0 {
		rep := doctor.Inspect(ctx, produce.NewReader(ws), abs)
		if !rep.OK {
			return nil, nil, fail("nothing to apply, but Doctor reports problems: %s", strings.Join(rep.Errors, "; "))
		}
		return p, rep, nil
	}
	t, err := newTxn(root, p)
	if err != nil {
		return nil, nil, err
	}
	if err := t.run(); err != nil {
		return nil, nil, t.rollback(fail("adopt failed: %v", err))
	}
	rep := doctor.InspectAdopting(ctx, produce.NewReader(ws), abs)
	if !rep.OK {
		return nil, nil, t.rollback(fail("Doctor failed after adopt: %s", strings.Join(rep.Errors, "; ")))
	}
	if err := t.remember(); err != nil {
		return nil, nil, t.rollback(fail("adopt could not add this adoption to its record, which `--undo` needs (%v)", err))
	}
	if err := t.removeJournal(); err != nil {
		return nil, nil, fail("adopt wrote every file and Doctor is healthy, but removing its journal failed (%v); run `create-vivary doctor`", err)
	}
	return p, rep, nil
}

// remember adds this adoption to the record an undo reads: the last write
// of the transaction, so a failure before it rolls everything back, and a
// kill after it leaves the journal, whose recovery takes the entry out
// again.
func (t *txn) remember() error {
	r, prev, err := loadRecord(t.root.Workspace())
	if err != nil {
		return err
	}
	if r == nil {
		r = &record{Schema: recordSchema}
	}
	r.Adoptions = append(r.Adoptions, t.entry())
	_, err = putRecord(t.root, r, prev)
	return err
}

// locked is the start of every apply: an approved hash is required (else
// the refusal missing), the target is bound and opened for writing under
// its write lock, so the plan the caller makes next is the one that runs.
// done releases the lock and the handles.
func locked(target, approved, missing string) (*workspace.Workspace, string, *write.Root, func(), error) {
	if approved == "" {
		return nil, "", nil, nil, fail("%s", missing)
	}
	ws, abs, err := bind(target)
	if err != nil {
		return nil, "", nil, nil, err
	}
	root, err := lockedRoot(ws)
	if err != nil {
		ws.Close()
		return nil, "", nil, nil, err
	}
	return ws, abs, root, func() { root.Close(); ws.Close() }, nil
}

// lockedRoot opens ws for writing and takes its write lock.
func lockedRoot(ws *workspace.Workspace) (*write.Root, error) {
	root, err := write.Open(ws, tempTag)
	if err != nil {
		return nil, fail("adopt target cannot be opened for writing")
	}
	if err := root.Lock(); err != nil {
		root.Close()
		if errors.Is(err, write.ErrBusy) {
			return nil, fail("adopt refused: another create-vivary write (an adoption, a recovery or an undo, a record or an init) is running in this folder; run it again when that one has finished")
		}
		return nil, fail("adopt refused: the folder cannot be locked for writing (%v)", err)
	}
	return root, nil
}

// txn is one adoption under way.
type txn struct {
	root   *write.Root
	p      *Plan
	j      *journal
	last   []byte   // the journal bytes on disk, once written
	jdirs  []string // the folders on the way to the journal that do not exist
	transi []byte   // .gitignore with the marker line, when .gitignore goes first
}

func newTxn(root *write.Root, p *Plan) (*txn, error) {
	t := &txn{root: root, p: p}
	for _, d := range []string{".vivary", ".vivary/runtime"} {
		if info, err := root.Workspace().Lstat(d); err != nil || !info.Exists {
			t.jdirs = append(t.jdirs, d)
		}
	}
	dirs := slices.Clone(t.jdirs)
	for _, d := range p.dirs {
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	slices.SortStableFunc(dirs, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	t.j = &journal{Schema: journalSchema, PlanHash: p.Hash, Approval: p.approval(), Phase: "planned", Dirs: dirs}
	for i, a := range p.Actions {
		ja := jAction{Path: a.Path, Kind: a.Kind, Existed: a.before != nil, AfterHash: canon.Digest(a.after)}
		if a.before != nil {
			ja.Before, ja.BeforeHash = b64(a.before), str(canon.Digest(a.before))
		}
		if i == 0 && a.Path == ".gitignore" {
			t.transi = append(slices.Clone(a.after), t.marker(a).Line()...)
			ja.TransientHash = str(canon.Digest(t.transi))
		}
		t.j.Actions = append(t.j.Actions, ja)
	}
	// The journal at its largest (every step done) must fit the limit a
	// recovery reads, before anything is written.
	t.j.Phase, t.j.Completed = "applying", len(t.j.Actions)
	b, err := t.j.encode()
	t.j.Phase, t.j.Completed = "planned", 0
	if err != nil {
		return nil, fail("adoption journal could not be encoded")
	}
	if len(b) > maxJournal {
		return nil, fail("adoption journal exceeds the recovery size limit (%d MiB): the backups of AGENTS.md and .gitignore are too large; shorten them or adopt by hand", maxJournal>>20)
	}
	return t, nil
}

// save writes the journal at a phase and count of completed steps.
func (t *txn) save(phase string, completed int) error {
	t.j.Phase, t.j.Completed = phase, completed
	b, err := t.j.encode()
	if err != nil {
		return err
	}
	d, err := t.root.Dir(".vivary/runtime")
	if err != nil {
		return err
	}
	_, name := path.Split(scaffold.JournalPath)
	if t.last == nil {
		_, err = d.Create(name, b)
	} else {
		prev := t.last
		_, err = d.Replace(name, b, maxJournal, func(old []byte) bool { return bytes.Equal(old, prev) })
	}
	if err != nil {
		return err
	}
	t.last = b
	return nil
}

// put writes one file through its folder's held handle and checks that the
// path names the very file written.
func (t *txn) put(rel string, data, expect []byte, create bool) error {
	folder, name := path.Split(rel)
	d, _, err := t.root.MkdirAll(strings.TrimSuffix(folder, "/"))
	if err != nil {
		return err
	}
	if create {
		written, err := d.Create(name, data)
		if err != nil {
			return err
		}
		return t.root.Verify(rel, written)
	}
	written, err := d.Replace(name, data, limits.MaxFileBytes+int64(len(data)), func(old []byte) bool { return bytes.Equal(old, expect) })
	if err != nil {
		return err
	}
	return t.root.Verify(rel, written)
}

// run writes: the .gitignore change first when there is one (with the
// marker, so the runtime folder is private before the journal exists), the
// journal, then each file, the journal after every step.
func (t *txn) run() error {
	acts := t.p.Actions
	start := 0
	if len(acts) > 0 && acts[0].Path == ".gitignore" {
		gi := acts[0]
		if err := t.put(gi.Path, t.transi, gi.before, gi.Kind == Create); err != nil {
			return err
		}
		if _, _, err := t.root.MkdirAll(".vivary/runtime"); err != nil {
			return err
		}
		if err := t.save("planned", 0); err != nil {
			return err
		}
		if err := t.put(gi.Path, gi.after, t.transi, false); err != nil {
			return err
		}
		if err := t.save("applying", 1); err != nil {
			return err
		}
		start = 1
	} else {
		if _, _, err := t.root.MkdirAll(".vivary/runtime"); err != nil {
			return err
		}
		if err := t.save("planned", 0); err != nil {
			return err
		}
	}
	for i := start; i < len(acts); i++ {
		a := acts[i]
		if err := t.put(a.Path, a.after, a.before, a.Kind == Create); err != nil {
			return err
		}
		if err := t.save("applying", i+1); err != nil {
			return err
		}
	}
	return nil
}

func (t *txn) removeJournal() error {
	d, err := t.root.Dir(".vivary/runtime")
	if err != nil {
		return err
	}
	_, name := path.Split(scaffold.JournalPath)
	data, info, err := d.Read(name, maxJournal)
	if err != nil {
		return err
	}
	if !bytes.Equal(data, t.last) {
		return write.ErrChanged
	}
	return d.Remove(name, info)
}

// rollback undoes what was written, from the in-memory journal, through the
// same handles: every file whose bytes are still what adopt wrote gets its
// original bytes back (or goes, if adopt created it). If anything cannot be
// undone, the journal stays for `--recover`.
func (t *txn) rollback(cause error) error {
	steps, problems := recoverySteps(t.root.Workspace(), t.j, true)
	if len(problems) == 0 {
		if t.last != nil {
			steps = append(steps, Step{Path: scaffold.JournalPath, Operation: opRemoveJournal, expect: t.last})
		}
		steps = append(steps, cleanupSteps(t.root.Workspace(), t.j.Dirs)...)
	}
	if err := execute(t.root, steps); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return fail("%v; rollback was incomplete (%s): run `create-vivary adopt DIR --recover`", cause, strings.Join(problems, "; "))
	}
	return fail("%v; every file was restored", cause)
}
