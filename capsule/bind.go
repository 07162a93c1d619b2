package capsule

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// bind is the capsule's workspace block: the workspace fingerprint, the
// fingerprint of what HEAD contributed, and the repair topology (the one
// checkout). The root path is hashed, never disclosed.
func bind(root, checkoutID string, co *checkout, found *headMatches, snap *snapshot.Snapshot) (Binding, error) {
	ws, err := workspaceFingerprint(root, co, snap)
	if err != nil {
		return Binding{}, failed("fingerprint failed", err)
	}
	topology, err := canon.Fingerprint(map[string]any{
		"schema":       "vivary.repair-topology/v0",
		"checkouts":    []any{map[string]any{"id": checkoutID, "path": root}},
		"repositories": []any{}, "checkout_of": []any{},
	})
	if err != nil {
		return Binding{}, failed("repair topology fingerprint failed", err)
	}
	content, err := contentFingerprint(found)
	if err != nil {
		return Binding{}, failed("content fingerprint failed", err)
	}
	return Binding{Fingerprint: ws, ContentFingerprint: content, RepairTopologyFingerprint: topology}, nil
}

// workspaceFingerprint binds the checkout state and the admitted documents;
// a fact not observed is null.
func workspaceFingerprint(root string, co *checkout, snap *snapshot.Snapshot) (string, error) {
	var head, ref, dirty any
	if co.head.ok {
		head = co.head.value
	}
	if co.ref.ok {
		ref = map[string]any{"kind": "detached"}
		if branch := co.ref.value; branch != "" {
			ref = map[string]any{"kind": "branch", "name": branch}
		}
	}
	dirtyPaths := []string{}
	if co.status.ok {
		dirty = len(co.status.value.paths) > 0
		if paths := co.status.value.paths; paths != nil {
			dirtyPaths = paths
		}
	}
	remotes := []map[string]string{}
	for _, r := range co.remotes.value {
		remotes = append(remotes, map[string]string{"name": r.name, "url": r.url, "direction": r.direction})
	}
	return canon.Fingerprint(map[string]any{
		"checkouts": []any{map[string]any{
			"path": root, "head_revision": head, "head_ref": ref, "is_dirty": dirty,
			"dirty_paths": dirtyPaths, "remotes": remotes,
		}},
		"documents": snap.Fingerprint,
	})
}

// contentFingerprint binds the question's terms and what HEAD gave for
// them. It holds no observation time, so the same tree and question give
// a byte-identical capsule.
func contentFingerprint(found *headMatches) (string, error) {
	var ms []any // null when nothing matched, as the reference binds it
	for _, m := range found.matches {
		ms = append(ms, map[string]any{"path": m.path, "line": m.line, "term": m.term, "excerpt": m.excerpt})
	}
	return canon.Fingerprint(map[string]any{"schema": "vivary.workspace-content/v0", "terms": found.terms, "reason": found.why, "matches": ms})
}

// deterministicID is kind_ and the first 16 hex digits of the SHA-256 of
// identity's canonical JSON.
func deterministicID(kind string, identity any) (string, error) {
	b, err := canon.Canonical(identity)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return kind + "_" + hex.EncodeToString(s[:])[:16], nil
}

// fingerprint is the capsule's own fingerprint: of every key but
// "fingerprint", as Verify recomputes it from the saved bytes.
func fingerprint(c *Capsule) (string, error) {
	b, err := Encode(c)
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
