// Package record owns the one governed write Vivary makes: a single typed
// record, bound to a verified public Task Capsule and the workspace state it
// was compiled for, applied only when the caller passes the exact plan hash
// a person approved. The write goes through package write's held folder
// handles (never by path) and is atomic; Doctor reruns after it, and any
// failed verification restores the tree byte for byte. There is no batch.
package record

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/capsule"
	"github.com/vivary-dev/vivary-go/doctor"
	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/snapshot"
	"github.com/vivary-dev/vivary-go/workspace"
)

// MaxInputBytes bounds the source and the capsule file.
const MaxInputBytes = 256 << 10

// Folders maps the record folders to the types they hold.
var Folders = map[string]string{"modules": "module", "changes": "change", "decisions": "decision", "verification": "verification", "gates": "gate"}

// fail is this writer's refusal: a reason.Refusal, in words for the person
// at the terminal.
func fail(format string, a ...any) error { return reason.Refuse(format, a...) }

// CapsuleBinding is what the plan binds to.
type CapsuleBinding struct {
	ID                   string `json:"id"`
	Fingerprint          string `json:"fingerprint"`
	WorkspaceFingerprint string `json:"workspace_fingerprint"`
}

// Plan is one create or update, with its hash.
type Plan struct {
	Contract   string         `json:"contract"`
	Action     string         `json:"action"`
	Path       string         `json:"path"`
	BeforeHash *string        `json:"before_hash"`
	AfterHash  string         `json:"after_hash"`
	Capsule    CapsuleBinding `json:"capsule"`
	PlanHash   string         `json:"plan_hash"`
	content    []byte
	before     []byte
}

// Request names the inputs of one record command.
type Request struct {
	Workspace string // the workspace root
	Record    string // <folder>/<slug>.md
	Source    string // path of the typed Markdown source
	Capsule   string // path of the saved public capsule JSON
}

var nameRe = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9._-]{0,126}[a-z0-9])?\.md$`)

// Destination checks the record path and returns the workspace-relative file.
func Destination(rec string) (string, string, error) {
	parts := strings.Split(rec, "/")
	if strings.ContainsRune(rec, '\\') || strings.HasPrefix(rec, "/") || len(parts) != 2 || Folders[parts[0]] == "" || !nameRe.MatchString(parts[1]) {
		return "", "", fail("record path must be <modules|changes|decisions|verification|gates>/<slug>.md")
	}
	return ".vivary/records/" + rec, Folders[parts[0]], nil
}

// readInput reads a regular, non-link file of at most MaxInputBytes.
func readInput(path, what string) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, fail("record %s must be an existing file", what)
	}
	if !st.Mode().IsRegular() {
		return nil, fail("record %s must be a regular file, not a link or special file", what)
	}
	if st.Size() > MaxInputBytes {
		return nil, fail("record %s must be at most %d KiB", what, MaxInputBytes>>10)
	}
	f, err := openInput(path)
	if err != nil {
		return nil, fail("record %s cannot be read; check its permissions", what)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxInputBytes+1))
	if err != nil {
		return nil, fail("record %s cannot be read; check its permissions", what)
	}
	if len(b) > MaxInputBytes {
		return nil, fail("record %s must be at most %d KiB", what, MaxInputBytes>>10)
	}
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		return nil, fail("record %s must be UTF-8 text without NUL bytes", what)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fail("record %s must not be empty", what)
	}
	return b, nil
}

func sha(b []byte) string { return canon.Digest(b) }

// PlanRecord builds the plan without writing anything.
func PlanRecord(ctx context.Context, req Request) (*Plan, error) {
	abs, ws, err := bind(req.Workspace)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	return plan(ctx, ws, abs, req)
}

func bind(dir string) (string, *workspace.Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, fail("record target must be an existing thin Vivary workspace; pass --workspace with the folder create-vivary init made")
	}
	ws, err := workspace.Bind(abs)
	if err != nil {
		return "", nil, fail("record target must be an existing thin Vivary workspace; pass --workspace with the folder create-vivary init made")
	}
	return abs, ws, nil
}

// plan builds the plan over the bound workspace; abs is the path the
// caller named it by.
func plan(ctx context.Context, ws *workspace.Workspace, abs string, req Request) (*Plan, error) {
	// One Reader serves Doctor, the capsule binding and the validation, so
	// the workspace is read once.
	reader := produce.NewReader(ws)
	rep := doctor.Inspect(ctx, reader, abs)
	if rep.Compatibility.WorkspaceContract == nil {
		return nil, fail("record target must use the thin-v0.3 workspace contract; create-vivary doctor names the contract files it lacks")
	}
	if !rep.OK {
		return nil, fail("record target must be healthy before planning a write: %s", strings.Join(rep.Errors, "; "))
	}
	dest, wantType, err := Destination(req.Record)
	if err != nil {
		return nil, err
	}
	if policy.Sensitive(dest) {
		return nil, fail("record path is refused: it looks secret; choose a name without words like token, secret or password")
	}
	if ignored, err := policy.Ignored(ctx, ws, dest); err != nil || ignored {
		return nil, fail("record path is refused: the workspace's ignore policy excludes it; choose a path the ignore rules do not exclude")
	}
	raw, err := readInput(req.Capsule, "capsule")
	if err != nil {
		return nil, err
	}
	saved, err := capsule.Verify(raw)
	if err != nil {
		if errors.Is(err, capsule.ErrNotObject) {
			return nil, fail("record capsule must be one bounded JSON object; pass the JSON that 'vivary capsule --json' printed, unchanged")
		}
		return nil, fail("record capsule integrity verification failed; the capsule changed after it was made, so ask for a new one with 'vivary capsule --json'")
	}
	current, err := capsule.WorkspaceFingerprint(ctx, reader)
	if err != nil {
		return nil, fail("record capsule workspace binding could not be verified; run it again")
	}
	if current != saved.Workspace.Fingerprint {
		return nil, fail("record capsule is stale or belongs to a different workspace state; ask for a new capsule with 'vivary capsule --json' and preview again")
	}
	source, err := readInput(req.Source, "source")
	if err != nil {
		return nil, err
	}
	p := &Plan{Contract: policy.ThinContract, Path: dest, content: source, AfterHash: sha(source),
		Capsule: CapsuleBinding{ID: saved.CapsuleID, Fingerprint: saved.Fingerprint, WorkspaceFingerprint: saved.Workspace.Fingerprint}}
	if srcAbs, err := filepath.Abs(req.Source); err == nil && srcAbs == filepath.Join(abs, filepath.FromSlash(dest)) {
		return nil, fail("record source must not be the destination file; keep the source outside the workspace")
	}
	info, err := ws.Lstat(dest)
	switch {
	case err != nil && errors.Is(err, workspace.ErrLink):
		return nil, fail("record destination must not be reached through a link; replace the link with a real folder")
	case err != nil:
		return nil, fail("record destination cannot be inspected; check the record folder's permissions")
	case !info.Exists:
		p.Action = "create"
	case !info.IsRegular() || info.Nlink != 1:
		return nil, fail("record destination must be a regular single-link file; remove the extra hard link or the special file")
	default:
		before, _, err := ws.ReadFile(dest, MaxInputBytes, nil)
		if err != nil {
			return nil, fail("record destination must be a regular single-link file of at most %d KiB", MaxInputBytes>>10)
		}
		if bytes.Equal(before, source) {
			return nil, fail("record already matches the proposed content; no write is needed")
		}
		h := sha(before)
		p.Action, p.BeforeHash, p.before = "update", &h, before
	}
	if err := validate(ctx, reader, dest, wantType, source); err != nil {
		return nil, err
	}
	p.PlanHash, err = planHash(p)
	if err != nil {
		return nil, fail("record plan could not be hashed; run it again")
	}
	return p, nil
}

// validate analyses the source as if it were at the destination: any
// finding, warnings included, or another type is a refusal.
func validate(ctx context.Context, reader *produce.Reader, dest, wantType string, source []byte) error {
	snap, err := reader.Snapshot(ctx)
	if err != nil {
		return fail("record target must be healthy before planning a write; create-vivary doctor says what to fix")
	}
	// A record every read would drop for its content is refused before it
	// is written; the message names neither the match nor where it is.
	if snapshot.Screen(strings.ToValidUTF8(string(source), "\ufffd"), reader.Workspace().Root()) != "" {
		return fail("record source holds what looks like a credential or this machine's workspace path, so every read would leave the record out; remove it from the source (keep secrets in an ignored file) and preview again")
	}
	d := graph.Analyze(snap.Config, dest, filepath.Base(reader.Workspace().Root()), string(source), 1, 1)
	ids := map[string]bool{d.ID: true}
	for id := range snap.Graph.IDs {
		ids[id] = true
	}
	findings := append(d.Findings, d.UnresolvedFindings(ids)...)
	if len(findings) > 0 {
		var parts []string
		for i, f := range findings {
			if i == 5 {
				break
			}
			parts = append(parts, fmt.Sprintf("%s:%d: %s %s", f.Path, f.Line, f.Code, f.Message))
		}
		return fail("record source is not a valid typed record: %s", strings.Join(parts, "; "))
	}
	// The folder map decides the type, as it does for every read: an
	// adopted workspace names its change records vivary_record_change.
	if d.Type != wantType && d.Type != AdoptedTypePrefix+wantType {
		got := d.Type
		if got == "" {
			got = "untyped"
		}
		return fail("record source is not a valid typed record: the workspace policy types %s as '%s', not '%s' or '%s%s'; map the folder %s to that type in %s",
			dest, got, wantType, AdoptedTypePrefix, wantType, path.Dir(dest), policy.ThinConfigPath)
	}
	return nil
}

// AdoptedTypePrefix names the record types of an adopted workspace, whose
// folders are .vivary/records/<folder> (vivary_record_change, ...).
const AdoptedTypePrefix = "vivary_record_"

// planHash is "sha256:" + the hash of the sorted, ASCII-escaped payload.
func planHash(p *Plan) (string, error) {
	var before any
	if p.BeforeHash != nil {
		before = *p.BeforeHash
	}
	payload := map[string]any{"contract": p.Contract, "action": p.Action, "path": p.Path, "before_hash": before,
		"after_hash": p.AfterHash, "capsule": map[string]any{"id": p.Capsule.ID, "fingerprint": p.Capsule.Fingerprint, "workspace_fingerprint": p.Capsule.WorkspaceFingerprint}}
	b, err := canon.Encode(payload, canon.Options{Order: canon.CodePoint, ASCII: true})
	if err != nil {
		return "", err
	}
	return sha(b), nil
}
