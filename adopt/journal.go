package adopt

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/scaffold"
)

const (
	journalSchema = "vivary.adopt-journal/v1"
	// maxJournal bounds the journal, backups included: checked before the
	// first write, so a recovery can always read what apply wrote.
	maxJournal = 1 << 20
	// maxActions bounds the rows a journal may hold.
	maxActions = 16
)

// journal is the record of one adoption in .vivary/runtime/adopt-journal.json:
// the approved plan, the backups of the bytes it changes, and how far it got.
type journal struct {
	Schema    string         `json:"schema"`
	PlanHash  string         `json:"plan_hash"`
	Approval  map[string]any `json:"approval"`
	Phase     string         `json:"phase"` // planned, applying
	Completed int            `json:"completed"`
	Dirs      []string       `json:"made_dirs"` // folders the adoption makes, shallow first
	Actions   []jAction      `json:"actions"`
}

type jAction struct {
	Path          string  `json:"path"`
	Kind          string  `json:"kind"`
	Existed       bool    `json:"existed"`
	Before        *string `json:"before"` // base64 of the bytes before; null for a create
	BeforeHash    *string `json:"before_hash"`
	AfterHash     string  `json:"after_hash"`
	TransientHash *string `json:"transient_after_hash"` // .gitignore with the marker line, when it is written first
}

func (j *journal) encode() ([]byte, error) { return encodeJSON(j) }

// encodeJSON renders v as Python's json.dumps(sort_keys=True, indent=2)
// with ASCII escapes, plus a newline: the journal's and the record's form.
func encodeJSON(v any) ([]byte, error) {
	b, err := canon.Encode(v, canon.Options{Order: canon.CodePoint, ASCII: true})
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func str(s string) *string { return &s }

func b64(b []byte) *string { return str(base64.StdEncoding.EncodeToString(b)) }

// before decodes a row's backup (nil for a create).
func (a jAction) before() ([]byte, error) {
	if a.Before == nil {
		return nil, nil
	}
	return base64.StdEncoding.Strict().DecodeString(*a.Before)
}

// accepted are the hashes a file may hold and still be what adopt wrote.
func (a jAction) accepted() []string {
	out := []string{a.AfterHash}
	if a.TransientHash != nil {
		out = append(out, *a.TransientHash)
	}
	return out
}

var hashRe = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// decodeJournal parses journal bytes strictly: one JSON object, no
// duplicate or unknown keys.
func decodeJournal(b []byte) (*journal, error) {
	malformed := fail("adoption journal is malformed; it was not written by this create-vivary, so recover by hand from your version control")
	tree, err := canon.DecodeStrict(b)
	if err != nil {
		return nil, malformed
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		return nil, malformed
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var j journal
	if err := dec.Decode(&j); err != nil {
		return nil, malformed
	}
	// The approval keeps its exact numbers (the inode) for the hash.
	if j.Approval, ok = obj["approval"].(map[string]any); !ok {
		return nil, malformed
	}
	return &j, nil
}

// expectedFor is what the current generator writes for rel under the
// approval's options, or false for a path adopt never creates.
func expectedFor(rel, project, preset string, adapters, caps []string) (string, bool) {
	switch rel {
	case ".gitignore":
		return gitignoreBlock(caps), true
	case ".vivary/context.md":
		return scaffold.Context(project, preset), true
	case policy.ThinConfigPath:
		return scaffold.AdoptedWorkspaceTOML(preset, adapters), true
	case "AGENTS.md":
		return scaffold.AgentsFile, true
	case "STATE.md":
		return scaffold.State, true
	}
	for _, a := range adapters {
		if f := scaffold.Adapter(a); f.Path == rel {
			return f.Content, true
		}
	}
	return "", false
}

func gitignoreBlock(caps []string) string {
	if slices.Contains(caps, "cocoindex-code") {
		return policy.GitignoreBlockCocoindex
	}
	return policy.GitignoreBlock
}

// madeDirsAllowed are the only folders an adoption ever makes.
var madeDirsAllowed = map[string]bool{".vivary": true, ".vivary/runtime": true, ".agents": true, ".agents/skills": true,
	".agents/skills/vivary": true, ".claude": true, ".claude/skills": true, ".claude/skills/vivary": true}

// validate checks a journal read from disk against the target it sits in
// and the generator: it may only ever undo what this create-vivary's adopt
// would have written there, so a forged or foreign journal cannot make a
// recovery delete or overwrite the owner's files.
func (j *journal) validate(id Identity) error {
	bad := func(why string) error { return fail("adoption journal is not valid: %s; nothing was changed", why) }
	if j.Schema != journalSchema {
		return bad("an unknown schema")
	}
	if !hashRe.MatchString(j.PlanHash) {
		return bad("a malformed plan hash")
	}
	if h, err := approvalHash(j.Approval); err != nil || h != j.PlanHash {
		return bad("its approval does not hash to its plan hash")
	}
	ap, err := readApproval(j.Approval)
	if err != nil {
		return bad(err.Error())
	}
	if ap.target != id {
		return fail("adoption journal is bound to a different workspace root (a moved or copied folder); recover it where it was written")
	}
	if j.Phase != "planned" && j.Phase != "applying" {
		return bad("an unknown phase")
	}
	if len(j.Actions) > maxActions || j.Completed < 0 || j.Completed > len(j.Actions) {
		return bad("a wrong number of steps")
	}
	for _, d := range j.Dirs {
		if !madeDirsAllowed[d] {
			return bad("a folder adopt never makes")
		}
	}
	project := scaffold.ProjectName(id.Path)
	seen := map[string]bool{}
	for i, a := range j.Actions {
		if seen[a.Path] {
			return bad("a file listed twice")
		}
		seen[a.Path] = true
		before, err := a.before()
		if err != nil || (before == nil) != (a.BeforeHash == nil) || a.Existed != (before != nil) {
			return bad("a malformed backup")
		}
		if before != nil && canon.Digest(before) != *a.BeforeHash {
			return bad("a backup that does not match its hash")
		}
		want, ok := expectedFor(a.Path, project, ap.preset, ap.adapters, ap.caps)
		if !ok {
			return bad("a file adopt never writes")
		}
		switch a.Kind {
		case Create:
			if before != nil || ap.creates[a.Path] != a.AfterHash || canon.Digest([]byte(want)) != a.AfterHash {
				return bad("a created file that is not what adopt generates")
			}
		case Patch:
			block := scaffold.AgentsBlock
			if a.Path == ".gitignore" {
				block = gitignoreBlock(ap.caps)
			} else if a.Path != "AGENTS.md" {
				return bad("a patch of a file adopt never patches")
			}
			p, ok := ap.patches[a.Path]
			ins := appendText(before, block)
			if !ok || before == nil || p.before != *a.BeforeHash || p.inserted != ins || canon.Digest(append(before, ins...)) != a.AfterHash {
				return bad("a patch that is not the canonical append")
			}
		case Replace:
			r, ok := ap.replacements[a.Path]
			if !ok || before == nil || r.before != *a.BeforeHash || r.after != a.AfterHash || canon.Digest([]byte(want)) != a.AfterHash {
				return bad("an adapter replacement that is not what adopt generates")
			}
		default:
			return bad("an unknown kind of step")
		}
		if a.TransientHash != nil {
			if i != 0 || a.Path != ".gitignore" {
				return bad("a marker on a file other than .gitignore")
			}
		}
	}
	if len(seen) != len(ap.creates)+len(ap.patches)+len(ap.replacements) {
		return bad("steps outside the approved plan")
	}
	for p := range seen {
		_, c := ap.creates[p]
		_, q := ap.patches[p]
		_, r := ap.replacements[p]
		if !c && !q && !r {
			return bad("steps outside the approved plan")
		}
	}
	return nil
}

// approvalView is the part of an approval a journal is checked against.
type approvalView struct {
	target       Identity
	preset       string
	adapters     []string
	caps         []string
	creates      map[string]string // path -> content hash
	patches      map[string]struct{ before, inserted string }
	replacements map[string]struct{ before, after string }
}

func readApproval(m map[string]any) (*approvalView, error) {
	v := &approvalView{creates: map[string]string{}, patches: map[string]struct{ before, inserted string }{},
		replacements: map[string]struct{ before, after string }{}}
	target, _ := m["target"].(map[string]any)
	dev, _ := target["device"].(json.Number)
	ino, _ := target["inode"].(json.Number)
	v.target.Path, _ = target["canonical_path"].(string)
	if _, err := fmt.Sscan(string(dev), &v.target.Dev); err != nil {
		return nil, fmt.Errorf("a malformed target")
	}
	if _, err := fmt.Sscan(string(ino), &v.target.Inode); err != nil {
		return nil, fmt.Errorf("a malformed target")
	}
	var ok bool
	if v.preset, ok = m["preset"].(string); !ok || !slices.Contains(scaffold.Presets, v.preset) {
		return nil, fmt.Errorf("an unknown preset")
	}
	strs := func(key string) ([]string, error) {
		list, ok := m[key].([]any)
		if !ok {
			return nil, fmt.Errorf("a malformed %s list", key)
		}
		out := []string{}
		for _, x := range list {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("a malformed %s list", key)
			}
			out = append(out, s)
		}
		return out, nil
	}
	var err error
	if v.adapters, err = strs("adapters"); err != nil {
		return nil, err
	}
	if checked, err := scaffold.CheckAdapters(v.adapters); err != nil || !slices.Equal(checked, v.adapters) {
		return nil, fmt.Errorf("unknown or unsorted adapters")
	}
	if v.caps, err = strs("capabilities"); err != nil {
		return nil, err
	}
	for _, c := range v.caps {
		if c != "cocoindex-code" {
			return nil, fmt.Errorf("an unknown capability")
		}
	}
	rows := func(key string, f func(map[string]any) bool) error {
		list, ok := m[key].([]any)
		if !ok {
			return fmt.Errorf("a malformed %s list", key)
		}
		for _, x := range list {
			row, ok := x.(map[string]any)
			if !ok || !f(row) {
				return fmt.Errorf("a malformed %s row", key)
			}
		}
		return nil
	}
	get := func(row map[string]any, k string) string { s, _ := row[k].(string); return s }
	if err := rows("creates", func(r map[string]any) bool {
		v.creates[get(r, "path")] = get(r, "content_hash")
		return hashRe.MatchString(get(r, "content_hash"))
	}); err != nil {
		return nil, err
	}
	if err := rows("patches", func(r map[string]any) bool {
		v.patches[get(r, "path")] = struct{ before, inserted string }{get(r, "before_hash"), get(r, "inserted_text")}
		return get(r, "anchor") == "eof" && hashRe.MatchString(get(r, "before_hash"))
	}); err != nil {
		return nil, err
	}
	if err := rows("adapter_replacements", func(r map[string]any) bool {
		v.replacements[get(r, "path")] = struct{ before, after string }{get(r, "before_hash"), get(r, "content_hash")}
		return hashRe.MatchString(get(r, "before_hash")) && hashRe.MatchString(get(r, "content_hash"))
	}); err != nil {
		return nil, err
	}
	for p := range v.patches {
		if p != ".gitignore" && p != "AGENTS.md" {
			return nil, fmt.Errorf("a patch of a file adopt never patches")
		}
	}
	return v, nil
}

// marker is the pre-journal line for this plan's .gitignore change.
func (t *txn) marker(gi Action) scaffold.Marker {
	m := scaffold.Marker{Plan: t.p.Hash, Before: "none", Dirs: len(t.jdirs)}
	if gi.before != nil {
		m.Existed, m.Before, m.Size = true, canon.Digest(gi.before), len(gi.before)
	}
	return m
}
