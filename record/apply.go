package record

import (
	"bytes"
	"context"
	"errors"
	"path"
	"strings"

	"github.com/vivary-dev/vivary-go/doctor"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/workspace"
	"github.com/vivary-dev/vivary-go/workspace/write"
)

// AfterWrite runs between the write and the post-write Doctor. Tests set
// it to inject a failing verification; it is nil in the shipped binaries.
var AfterWrite func() error

// tempTag names the temp files of a record write: .record-<n>.vivary-tmp.
const tempTag = "record"

// Apply re-plans under the workspace's write lock, requires the approved
// hash to equal the plan hash now, writes the one file through held folder
// handles, checks that the path now names the very file written, reruns
// Doctor, and rolls back on any failure.
func Apply(ctx context.Context, req Request, approved string) (*Plan, *doctor.Report, error) {
	if approved == "" {
		return nil, nil, fail("record apply requires --apply <hash> from the approved preview")
	}
	abs, ws, err := bind(req.Workspace)
	if err != nil {
		return nil, nil, err
	}
	defer ws.Close()
	root, err := write.Open(ws, tempTag)
	if err != nil {
		return nil, nil, fail("record target must be an existing thin Vivary workspace; pass --workspace with the folder create-vivary init made")
	}
	defer root.Close()
	if err := root.Lock(); err != nil {
		if errors.Is(err, write.ErrBusy) {
			return nil, nil, fail("record apply refused: another create-vivary write is running in this workspace; run it again when that one has finished")
		}
		return nil, nil, fail("record apply refused: the workspace cannot be locked for writing (%v)", err)
	}
	p, err := plan(ctx, ws, abs, req)
	if err != nil {
		return nil, nil, err
	}
	if p.PlanHash != approved {
		return nil, nil, fail("record plan hash mismatch: approved %s, current %s; preview again, read the plan, and approve the current hash", approved, p.PlanHash)
	}
	if err := sweep(root); err != nil {
		return nil, nil, fail("record apply refused: a temp file an interrupted apply left cannot be removed (%v)", err)
	}
	t, err := put(root, p)
	if err != nil {
		return nil, nil, err
	}
	var verr error
	if AfterWrite != nil {
		verr = AfterWrite()
	}
	var rep *doctor.Report
	if verr == nil {
		rep = doctor.Inspect(ctx, produce.NewReader(ws), abs)
		if !rep.OK {
			verr = errors.New(strings.Join(rep.Errors, "; "))
		}
	}
	if verr != nil {
		if rerr := t.rollback(); rerr != nil {
			return nil, nil, fail("Doctor failed after record apply: %v; rollback failed: %v", verr, rerr)
		}
		return nil, nil, fail("Doctor failed after record apply and the workspace was restored: %v", verr)
	}
	return p, rep, nil
}

// sweep removes the temp files a killed apply left in the record folders.
func sweep(root *write.Root) error {
	for folder := range Folders {
		d, err := root.Dir(".vivary/records/" + folder)
		if err != nil {
			continue // missing, or not a folder: nothing of ours can be in it
		}
		if _, err := d.Sweep(); err != nil {
			return err
		}
	}
	return nil
}

// txn is one placed record, with what undoing it needs.
type txn struct {
	root *write.Root
	dir  *write.Dir
	name string
	info workspace.Info
	made []string
	p    *Plan
}

// put makes the record's missing folders and places the file: a new name
// without replacing anything, or an exchange whose swapped-out bytes must be
// the ones the plan saw. Then the path, resolved afresh from the root, must
// name the very file written; otherwise the write is undone.
func put(root *write.Root, p *Plan) (*txn, error) {
	folder, name := path.Split(p.Path)
	dir, made, err := root.MkdirAll(strings.TrimSuffix(folder, "/"))
	if err != nil {
		if errors.Is(err, write.ErrLink) {
			return nil, fail("record apply refused: a folder on the way to the record is a link or not a plain directory; nothing was written")
		}
		return nil, fail("record apply failed and nothing was written: %v", err)
	}
	t := &txn{root: root, dir: dir, name: name, made: made, p: p}
	if p.Action == "create" {
		t.info, err = dir.Create(name, p.content)
	} else {
		t.info, err = dir.Replace(name, p.content, MaxInputBytes, func(old []byte) bool { return bytes.Equal(old, p.before) })
	}
	if err != nil {
		if uerr := root.RemoveMade(made); uerr != nil {
			return nil, fail("record apply failed: %v; rollback failed: %v", err, uerr)
		}
		return nil, fail("record apply failed and rolled back: %v", err)
	}
	if err := root.Verify(p.Path, t.info); err != nil {
		if rerr := t.rollback(); rerr != nil {
			return nil, fail("record apply refused: %v; rollback failed: %v", err, rerr)
		}
		return nil, fail("record apply refused: %v; the record was taken back out and nothing is left in place", err)
	}
	return t, nil
}

// rollback undoes the write through the same held handles: the new file
// and the folders made for it go, or the previous bytes come back.
func (t *txn) rollback() error {
	if t.p.Action == "create" {
		if err := t.dir.Remove(t.name, t.info); err != nil {
			return err
		}
		return t.root.RemoveMade(t.made)
	}
	if err := t.dir.Restore(t.name, t.p.before, t.p.content); err != nil {
		return err
	}
	return nil
}
