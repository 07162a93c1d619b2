// Package capsule owns the public Task Capsule
// (vivary.public-task-capsule/v0) and its own read path: the checkout facts
// a fixed set of read-only git calls observe, the lines of HEAD `git grep`
// finds for a question's words in paths the privacy policy admits at the
// call, their ranking into claims under a budget, the public projection
// that drops any claim not safe to show, the fingerprints that bind a
// capsule to the workspace state, and [Verify], which checks a saved
// capsule whole before package record binds a write to it.
//
// It must never write (git runs through policy.RunGit with no optional
// locks, so not even the index), run a check it names, or return raw
// evidence, a command, a secret-looking path or a path outside the
// workspace.
package capsule

import (
	"context"
	"fmt"

	"github.com/vivary-dev/vivary-go/canon"
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
	MaxClaims int // 0..limits.MaxClaims
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

// Budget is the claim budget the capsule was compiled with.
type Budget struct {
	MaxClaims int `json:"max_claims"`
}

// Capsule is vivary.public-task-capsule/v0. Its field order is the order
// of its published JSON.
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

// Compile compiles the public Task Capsule for a question over r's fresh
// snapshot: the question passes the rule every question passes
// (produce.ValidateText), then the checkout and HEAD are observed, and the
// capsule is assembled from what they said. It runs no check and returns
// no raw evidence, command or path outside the workspace; the same tree
// and question give a byte-identical capsule.
func Compile(ctx context.Context, r *produce.Reader, a Args) (*Capsule, error) {
	ws := r.Workspace()
	if err := produce.ValidateText("question", a.Question, ws.Root()); err != nil {
		return nil, err
	}
	if a.MaxClaims < 0 || a.MaxClaims > limits.MaxClaims {
		return nil, reason.New(reason.InvalidArguments, fmt.Sprintf("max_claims must be between 0 and %d", limits.MaxClaims))
	}
	snap, err := r.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	co, err := observeCheckout(ctx, ws)
	if err != nil {
		return nil, err
	}
	found, err := grepHead(ctx, ws, co, governedTerms(a.Question))
	if err != nil {
		return nil, err
	}
	c, err := assemble(ws.Root(), a, co, found, snap)
	if err != nil {
		return nil, err
	}
	// What was observed holds only if the root is still the one bound.
	if err := ws.Check(); err != nil {
		return nil, err
	}
	return c, nil
}

// ignoredPaths is the one omission every capsule carries.
var ignoredPaths = snapshot.Omission{Kind: "ignored_paths_excluded", Reason: "git-ignored paths are excluded from observation by policy and never enter a capsule", Count: 1}

// assemble builds the capsule from what was observed: the unknowns, the
// ranked claims under the budget and their public projection, the checks a
// later change must pass, and the fingerprints that bind it.
func assemble(root string, a Args, co *checkout, found *headMatches, snap *snapshot.Snapshot) (*Capsule, error) {
	checkoutID, err := deterministicID("checkout", map[string]any{"path": root})
	if err != nil {
		return nil, failed("checkout id failed", err)
	}
	c := &Capsule{
		Schema: SchemaID, Claims: []Claim{}, Unknowns: co.unknowns(), RequiredChecks: co.requiredChecks(checkoutID),
		Budget: Budget{MaxClaims: a.MaxClaims}, Omissions: []snapshot.Omission{ignoredPaths}, ProjectionOmissions: []snapshot.Omission{},
	}
	if found.why != "" {
		c.Unknowns = append(c.Unknowns, Unknown{Kind: "content_search_incomplete", Reason: found.why})
	}
	c.project(c.withinBudget(candidates(root, a.Question, checkoutID, co, found.matches)), root)
	if c.Workspace, err = bind(root, checkoutID, co, found, snap); err != nil {
		return nil, err
	}
	if c.CapsuleID, err = deterministicID("capsule", map[string]any{"task": a.Question, "filters": nil, "workspace": c.Workspace.Fingerprint}); err != nil {
		return nil, failed("capsule id failed", err)
	}
	if c.Fingerprint, err = fingerprint(c); err != nil {
		return nil, failed("capsule fingerprint failed", err)
	}
	return c, nil
}

// WorkspaceFingerprint is the fingerprint a capsule compiled now would bind
// (its workspace.fingerprint): the checkout state and the admitted
// documents of r's fresh snapshot. Package record compares it with a saved
// capsule's to refuse a stale one.
func WorkspaceFingerprint(ctx context.Context, r *produce.Reader) (string, error) {
	snap, err := r.Snapshot(ctx)
	if err != nil {
		return "", err
	}
	co, err := observeCheckout(ctx, r.Workspace())
	if err != nil {
		return "", err
	}
	return workspaceFingerprint(r.Workspace().Root(), co, snap)
}

// Encode is the capsule as it is saved and verified: compact JSON in the
// published key order.
func Encode(c *Capsule) ([]byte, error) {
	return canon.Encode(c, canon.Options{Order: canon.Unsorted})
}

// failed is the refusal of a step that cannot fail on a capsule's own
// values; the cause is kept for errors.Is, never shown.
func failed(msg string, cause error) error {
	return reason.Wrap(reason.ProducerUnavailable, msg, cause)
}
