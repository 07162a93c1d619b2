package snapshot

import (
	"context"
	"strings"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/workspace"
)

// loadConfig reads and composes the admitted policy files. It returns the
// remaining aggregate byte budget.
func (s *Snapshot) loadConfig(ctx context.Context, ws *workspace.Workspace, rules *policy.Session, cands []candidate, thin bool, col *collector) (*policy.Config, int64, error) {
	budget := ceilings.bytes
	rels := make([]string, len(cands))
	for i, c := range cands {
		rels[i] = c.rel
	}
	ignored, err := rules.Ignored(ctx, rels)
	if err != nil {
		return nil, 0, err
	}
	var parsed []map[string]any
	legacyFail := func(rel, why string) (*policy.Config, int64, error) {
		col.hide("config", why, rel, "")
		col.complete = false
		return policy.DefaultConfig(), budget, nil
	}
	for _, c := range cands {
		if ignored[c.rel] {
			if thin {
				return nil, 0, policyUnavailable("a workspace policy file is ignored or secret-looking")
			}
			return legacyFail(c.rel, "git_ignored")
		}
		want := c.info
		// Its stamp is among the policy inputs Take stamped before this read.
		data, _, err := ws.ReadFile(c.rel, limits.MaxFileBytes, &want)
		if err == workspace.ErrTooLarge {
			return nil, 0, policyFileTooLarge(c.info.Size)
		}
		if err != nil {
			if thin {
				return nil, 0, policyUnavailable("a workspace policy file cannot be read")
			}
			return legacyFail(c.rel, "unavailable")
		}
		budget -= int64(len(data))
		text := string(data)
		if guard.Credential(text) || guard.ContainsRoot(text, ws.Root()) {
			if thin {
				return nil, 0, policyUnavailable("a workspace policy file holds a credential or a machine path")
			}
			return legacyFail(c.rel, "sensitive_content")
		}
		raw, err := policy.ParseTOML(data)
		if err != nil {
			if thin {
				// c.rel is a policy file the privacy policy admitted.
				return nil, 0, reason.Wrap(reason.PrivacyPolicyUnavailable, "the workspace policy file "+c.rel+" is "+err.Error()+"; fix it there", err)
			}
			return legacyFail(c.rel, "invalid")
		}
		parsed = append(parsed, raw)
		s.configFiles = append(s.configFiles, configFile{rel: c.rel, data: data, sha256: hexSHA(data)})
	}
	if len(parsed) == 0 {
		return policy.DefaultConfig(), budget, nil
	}
	cfg, packs, err := policy.Compose(parsed, thin)
	if err != nil {
		if thin {
			return nil, 0, reason.Wrap(reason.PrivacyPolicyUnavailable, "the workspace policy is invalid or loosens its base: "+err.Error(), err)
		}
		return legacyFail(policy.OverlayPath, "invalid")
	}
	col.add("config", "local_pack_excluded", len(packs))
	return cfg, budget, nil
}

func hexSHA(b []byte) string { return strings.TrimPrefix(canon.Digest(b), "sha256:") }

func (s *Snapshot) configDigest() (string, error) {
	switch len(s.configFiles) {
	case 0:
		return "default", nil
	case 1:
		return s.configFiles[0].sha256, nil
	}
	list := make([]map[string]string, len(s.configFiles))
	for i, c := range s.configFiles {
		list[i] = map[string]string{"path": c.rel, "sha256": c.sha256}
	}
	b, err := canon.Compact(list)
	if err != nil {
		return "", err
	}
	return hexSHA(b), nil
}
