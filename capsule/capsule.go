// Package capsule owns the public Task Capsule
// (vivary.public-task-capsule/v0) and its own read path: the checkout facts
// a fixed set of read-only git calls observe, the lines of HEAD `git grep`
// finds for a question's words in paths the privacy policy admits at the
// call, their ranking into claims under a budget, the public projection
// that drops any claim not safe to show, the fingerprints that bind a
// capsule to the workspace state, and Verify, which checks a saved capsule
// whole before package record binds a write to it.
//
// It must never write (git runs through policy.RunGit with no optional
// locks, so not even the index), run a check it names, or return raw
// evidence, a command, a secret-looking path or a path outside the
// workspace.
package capsule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// SchemaID is the public capsule's schema id.
const SchemaID = "vivary.public-task-capsule/v0"

// Args are vivary_capsule's inputs.
type Args struct {
	Question  string
	MaxClaims int // 0..24
}

// Claim is one public, known claim.
type Claim struct {
	Fact            string `json:"fact"`
	Claim           string `json:"claim"`
	Status          string `json:"status"`
	SelectionReason string `json:"selection_reason"`
}

// Unknown is one fact the capsule could not establish.
type Unknown struct {
	Kind   string  `json:"kind"`
	Fact   *string `json:"fact"`
	Reason string  `json:"reason"`
}

// RequiredCheck names a check a later change must pass; never its command.
type RequiredCheck struct {
	Name string `json:"name"`
}

// Binding binds the capsule to the workspace state.
type Binding struct {
	Fingerprint               string `json:"fingerprint"`
	ContentFingerprint        string `json:"content_fingerprint,omitempty"`
	RepairTopologyFingerprint string `json:"repair_topology_fingerprint,omitempty"`
}

// Capsule is vivary.public-task-capsule/v0.
type Capsule struct {
	Schema              string              `json:"schema"`
	CapsuleID           string              `json:"capsule_id"`
	Workspace           Binding             `json:"workspace"`
	Claims              []Claim             `json:"claims"`
	ConflictCount       int                 `json:"conflict_count"`
	Unknowns            []Unknown           `json:"unknowns"`
	Omissions           []snapshot.Omission `json:"omissions"`
	RequiredChecks      []RequiredCheck     `json:"required_checks"`
	Budget              Budget              `json:"budget"`
	Complete            bool                `json:"complete"`
	ProjectionOmissions []snapshot.Omission `json:"projection_omissions"`
	Fingerprint         string              `json:"fingerprint"`
}

// Budget is the claim budget the capsule was compiled with.
type Budget struct {
	MaxClaims int `json:"max_claims"`
}

// candidateClaim is a claim before selection and projection.
type candidateClaim struct {
	fact, claim, reason string
	rank                float64
	key                 string
}

var factWeight = map[string]float64{"head_revision": 0, "head_ref": 1, "is_dirty": 2, "dirty_entries": 2.5, "remotes": 3, "last_fetch": 4, "content_match": 5}

// droppedFacts never reach a public capsule.
var droppedFacts = map[string]bool{"dirty_entries": true, "content_match": true, "git_common_dir": true, "recommended_checks": true, "remotes": true, "worktree_root": true}

var selectionStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields("the and for with that this from into what which where when how why who about are was were has have had not but can could should would will does did its our your their there here then than them they you local current truth checkout checkouts repository repositories branch branches remote remotes worktree worktrees commit commits dev git") {
		selectionStop[w] = true
	}
}

var selectionTermRe = regexp.MustCompile(`[a-z0-9][a-z0-9-]*`)

// selectionTerms are the ASCII words (hyphens kept, at least three letters,
// without the checkout vocabulary every question about a repository uses)
// that rank the capsule's claims: a claim whose label or branch holds one
// whole is about the question. The reference's rule, kept apart from search
// and from governedTerms (see there) because a branch name such as
// feat/held-handles must match as written, unstemmed.
func selectionTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range selectionTermRe.FindAllString(strings.ToLower(q), -1) {
		if len(t) >= 3 && !selectionStop[t] && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func wholeWord(hay, term string) bool {
	re := regexp.MustCompile(`(^|[^a-z0-9])` + regexp.QuoteMeta(term) + `([^a-z0-9]|$)`)
	return re.MatchString(strings.ToLower(hay))
}

func deterministicID(kind string, identity any) (string, error) {
	b, err := canon.Canonical(identity)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return kind + "_" + hex.EncodeToString(s[:])[:16], nil
}

// Compile compiles the public Task Capsule for a question. It runs no check,
// returns no raw evidence, command or path outside the workspace.
func Compile(ctx context.Context, r *produce.Reader, a Args) (*Capsule, error) {
	if err := produce.ValidateText("question", a.Question, r.Workspace().Root()); err != nil {
		return nil, err
	}
	if a.MaxClaims < 0 || a.MaxClaims > limits.MaxClaims {
		return nil, reason.New(reason.InvalidArguments, fmt.Sprintf("max_claims must be between 0 and %d", limits.MaxClaims))
	}
	snap, err := r.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	root := r.Workspace().Root()
	obs, err := observeCheckout(ctx, r, snap)
	if err != nil {
		return nil, err
	}
	terms := governedTerms(a.Question)
	matches, contentReason, err := observeContent(ctx, r, obs, terms)
	if err != nil {
		return nil, err
	}
	wsFP, err := obs.workspaceFingerprint(root, snap)
	if err != nil {
		return nil, reasonProducer("fingerprint failed")
	}
	checkoutID, _ := deterministicID("checkout", map[string]any{"path": root})
	c := &Capsule{
		Schema: SchemaID, Claims: []Claim{}, Unknowns: []Unknown{}, RequiredChecks: []RequiredCheck{},
		Budget: Budget{MaxClaims: a.MaxClaims}, ProjectionOmissions: []snapshot.Omission{},
		Omissions: []snapshot.Omission{{Kind: "ignored_paths_excluded", Reason: "git-ignored paths are excluded from observation by policy and never enter a capsule", Count: 1}},
	}
	// Candidate claims, ranked.
	var cands []candidateClaim
	sterms := selectionTerms(a.Question)
	label := filepath.Base(root)
	tier1 := ""
	for _, t := range sterms {
		switch {
		case wholeWord(label, t):
			tier1 = fmt.Sprintf("task question term '%s' matches the subject label", t)
		case obs.branch != "" && wholeWord(obs.branch, t):
			tier1 = fmt.Sprintf("task question term '%s' matches the subject branch", t)
		}
		if tier1 != "" {
			break
		}
	}
	add := func(fact, text string, extra float64, reasonText string) {
		tier := 2.0
		why := "inside the task allowlist; no task-specific relevance signal"
		if reasonText != "" {
			tier, why = 1, reasonText
		} else if tier1 != "" {
			tier, why = 1, tier1
		}
		cands = append(cands, candidateClaim{fact: fact, claim: text, reason: why, rank: tier*100 + factWeight[fact] + extra, key: checkoutID + ":" + fact + ":" + text})
	}
	if obs.git {
		f := obs.facts
		if h := f["head_revision"]; h.known {
			add("head_revision", "HEAD revision is "+h.value.(string), 0, "")
		}
		if h := f["head_ref"]; h.known {
			if obs.branch != "" {
				add("head_ref", fmt.Sprintf("HEAD is on branch '%s'", obs.branch), 0, "")
			} else {
				add("head_ref", "HEAD is detached", 0, "")
			}
		}
		if d := f["is_dirty"]; d.known {
			if d.value.(bool) {
				add("is_dirty", "worktree has uncommitted changes", 0, "")
			} else {
				add("is_dirty", "worktree is clean", 0, "")
			}
		}
		if d := f["dirty_entries"]; d.known {
			entries := d.value.([]string)
			if len(entries) > 0 {
				shown := entries
				if len(shown) > 10 {
					shown = shown[:10]
				}
				word := "entries"
				if len(entries) == 1 {
					word = "entry"
				}
				add("dirty_entries", fmt.Sprintf("worktree has %d dirty %s: %s", len(entries), word, strings.Join(shown, ", ")), 0, "")
			}
		}
		if rm := f["remotes"]; rm.known {
			if len(obs.remotes) == 0 {
				add("remotes", "no remotes are configured", 0, "")
			} else {
				var parts []string
				for _, x := range obs.remotes {
					parts = append(parts, x["name"]+" -> "+x["url"])
				}
				add("remotes", "remotes: "+strings.Join(parts, ", "), 0, "")
			}
		}
		if lf := f["last_fetch"]; lf.known {
			add("last_fetch", "last recorded fetch at "+lf.value.(string), 0, "")
		}
		for i, m := range matches {
			add("content_match", fmt.Sprintf("%s:%d matches '%s': %q", m.path, m.line, m.term, m.excerpt), 25*float64(i),
				fmt.Sprintf("content match: term '%s' was found in %s", m.term, m.path))
		}
		if obs.markers["tropo.toml"] && obs.markers["AGENTS.md"] && obs.markers["STRATO.md"] {
			c.RequiredChecks = append(c.RequiredChecks, RequiredCheck{"vivary-graph-doctor@" + checkoutID})
		}
		if obs.markers["tropo.toml"] {
			c.RequiredChecks = append(c.RequiredChecks, RequiredCheck{"vivary-graph-check@" + checkoutID})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].rank != cands[j].rank {
			return cands[i].rank < cands[j].rank
		}
		return guard.Less(cands[i].key, cands[j].key)
	})
	if len(cands) > a.MaxClaims {
		omitted := len(cands) - a.MaxClaims
		c.Omissions = append(c.Omissions, snapshot.Omission{Kind: "claims_over_budget", Reason: fmt.Sprintf("claim budget %d reached; lower-ranked claims were omitted", a.MaxClaims), Count: omitted})
		cands = cands[:a.MaxClaims]
	}
	// Unknowns: facts, then content.
	order := []string{"is_git_repository", "head_revision", "head_ref", "is_dirty", "dirty_entries", "remotes", "upstream", "last_fetch"}
	for _, n := range order {
		if f, ok := obs.facts[n]; ok && !f.known {
			name := n
			c.Unknowns = append(c.Unknowns, Unknown{Kind: "workspace_fact", Fact: &name, Reason: f.reason})
		}
	}
	if contentReason != "" {
		c.Unknowns = append(c.Unknowns, Unknown{Kind: "content_search_incomplete", Reason: contentReason})
	}
	// Public projection.
	dropped := 0
	for _, cl := range cands {
		if len(c.Claims) == limits.MaxClaims || droppedFacts[cl.fact] || !publicSafe(cl.claim, root) || !publicSafe(cl.reason, root) {
			dropped++
			continue
		}
		c.Claims = append(c.Claims, Claim{Fact: cl.fact, Claim: cl.claim, Status: "known", SelectionReason: cl.reason})
	}
	if dropped > 0 {
		c.ProjectionOmissions = append(c.ProjectionOmissions, snapshot.Omission{Kind: "claim", Reason: "unsafe_for_public_projection", Count: dropped})
	}
	c.Complete = len(c.ProjectionOmissions) == 0
	// Workspace block.
	topo, _ := canon.Fingerprint(map[string]any{
		"schema":       "vivary.repair-topology/v0",
		"checkouts":    []any{map[string]any{"id": checkoutID, "path": root}},
		"repositories": []any{}, "checkout_of": []any{},
	})
	// The content record carries no observation time, so the same tree and
	// question give a byte-identical capsule.
	content := map[string]any{"schema": "vivary.workspace-content/v0", "terms": terms, "reason": contentReason}
	var ms []any
	for _, m := range matches {
		ms = append(ms, map[string]any{"path": m.path, "line": m.line, "term": m.term, "excerpt": m.excerpt})
	}
	content["matches"] = ms
	contentFP, _ := canon.Fingerprint(content)
	c.Workspace = Binding{Fingerprint: wsFP, ContentFingerprint: contentFP, RepairTopologyFingerprint: topo}
	c.CapsuleID, err = deterministicID("capsule", map[string]any{"task": a.Question, "filters": nil, "workspace": wsFP})
	if err != nil {
		return nil, reasonProducer("capsule id failed")
	}
	if c.Fingerprint, err = capsuleFingerprint(c); err != nil {
		return nil, reasonProducer("capsule fingerprint failed")
	}
	if err := r.Workspace().Check(); err != nil {
		return nil, err
	}
	return c, nil
}

func reasonProducer(msg string) error { return reason.New(reason.ProducerUnavailable, msg) }

// publicSafe is the projection's text rule: printable, bounded, no root,
// and after normalisation no machine path, URI, userinfo, credential or key.
func publicSafe(s, root string) bool {
	return guard.SafeText(s, 4096) && !guard.ContainsRoot(s, root) && !guard.MachinePath(s) && !guard.AnyURI(s) && !guard.Credential(s)
}

// capsuleFingerprint is the fingerprint of every key but "fingerprint".
func capsuleFingerprint(c *Capsule) (string, error) {
	body := *c
	b, err := canon.Encode(body, canon.Options{Order: canon.Unsorted})
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := decodeStrict(b, &m); err != nil {
		return "", err
	}
	delete(m, "fingerprint")
	return canon.Fingerprint(m)
}

// WorkspaceFingerprint is the current workspace fingerprint a capsule binds:
// the checkout state and the admitted documents.
func WorkspaceFingerprint(ctx context.Context, r *produce.Reader) (string, error) {
	snap, err := r.Snapshot(ctx)
	if err != nil {
		return "", err
	}
	obs, err := observeCheckout(ctx, r, snap)
	if err != nil {
		return "", err
	}
	return obs.workspaceFingerprint(r.Workspace().Root(), snap)
}

// Encode is the capsule as it is saved and verified: compact JSON.
func Encode(c *Capsule) ([]byte, error) {
	return canon.Encode(c, canon.Options{Order: canon.Unsorted})
}
