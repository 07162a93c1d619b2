package capsule

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
)

// decodeStrict decodes one JSON object, refusing duplicate keys and
// trailing data, with numbers kept exact.
func decodeStrict(b []byte, out *map[string]any) error {
	v, err := canon.DecodeStrict(b)
	if err != nil {
		return err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return errors.New("not a JSON object")
	}
	*out = m
	return nil
}

var (
	digestRe = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	factIDRe = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
)

// ErrIntegrity is any capsule that is not a valid, untampered
// public Task Capsule; ErrNotObject, wrapping it, is input that is
// not one JSON object at all.
var (
	ErrIntegrity = errors.New("capsule integrity verification failed")
	ErrNotObject = fmt.Errorf("%w: not one JSON object", ErrIntegrity)
)

type checker struct{ err error }

func (c *checker) fail(format string, a ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: "+format, append([]any{ErrIntegrity}, a...)...)
	}
}

func (c *checker) object(v any, where string, required []string, optional ...string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		c.fail("%s is not an object", where)
		return map[string]any{}
	}
	allowed := map[string]bool{}
	for _, k := range append(append([]string{}, required...), optional...) {
		allowed[k] = true
	}
	for k := range m {
		if !allowed[k] {
			c.fail("%s has an unknown key", where)
		}
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			c.fail("%s lacks a required key", where)
		}
	}
	return m
}

func (c *checker) array(v any, where string, max int) []any {
	a, ok := v.([]any)
	if !ok || len(a) > max {
		c.fail("%s is not an array of at most %d items", where, max)
		return nil
	}
	return a
}

func (c *checker) str(v any, where string, max int, re *regexp.Regexp) {
	s, ok := v.(string)
	if !ok || s == "" || guard.Len(s) > max || (re != nil && !re.MatchString(s)) {
		c.fail("%s is not a valid string", where)
	}
}

func (c *checker) safe(v any, where string) {
	s, ok := v.(string)
	if !ok || !guard.SafeText(s, 4096) {
		c.fail("%s is not safe text", where)
	}
}

func (c *checker) integer(v any, where string, min, max int64) {
	n, ok := v.(json.Number)
	if !ok {
		c.fail("%s is not an integer", where)
		return
	}
	i, err := n.Int64()
	if err != nil || i < min || i > max {
		c.fail("%s is out of range", where)
	}
}

// Verify parses a saved public capsule and checks it whole: one JSON
// object without duplicate keys, the closed public capsule schema, and a
// fingerprint that matches every other key. It returns the capsule.
func Verify(data []byte) (*Capsule, error) {
	var m map[string]any
	if err := decodeStrict(data, &m); err != nil {
		return nil, ErrNotObject
	}
	c := &checker{}
	c.object(m, "capsule", []string{"schema", "capsule_id", "workspace", "claims", "conflict_count", "unknowns", "omissions", "required_checks", "budget", "complete", "projection_omissions", "fingerprint"})
	if m["schema"] != SchemaID {
		c.fail("schema is not %s", SchemaID)
	}
	c.str(m["capsule_id"], "capsule_id", 128, nil)
	w := c.object(m["workspace"], "workspace", []string{"fingerprint"}, "content_fingerprint", "repair_topology_fingerprint")
	for k, v := range w {
		c.str(v, "workspace."+k, 71, digestRe)
	}
	for _, v := range c.array(m["claims"], "claims", 24) {
		cl := c.object(v, "claim", []string{"fact", "claim", "status", "selection_reason"})
		c.str(cl["fact"], "claim.fact", 64, factIDRe)
		c.safe(cl["claim"], "claim.claim")
		if cl["status"] != "known" {
			c.fail("claim.status is not known")
		}
		c.safe(cl["selection_reason"], "claim.selection_reason")
	}
	c.integer(m["conflict_count"], "conflict_count", 0, limits.MaxLosslessInt)
	for _, v := range c.array(m["unknowns"], "unknowns", 64) {
		u := c.object(v, "unknown", []string{"kind", "fact", "reason"})
		c.str(u["kind"], "unknown.kind", 64, factIDRe)
		if u["fact"] != nil {
			c.str(u["fact"], "unknown.fact", 64, factIDRe)
		}
		c.safe(u["reason"], "unknown.reason")
	}
	for _, v := range c.array(m["omissions"], "omissions", 64) {
		o := c.object(v, "omission", []string{"kind", "reason", "count"})
		c.str(o["kind"], "omission.kind", 64, factIDRe)
		c.safe(o["reason"], "omission.reason")
		c.integer(o["count"], "omission.count", 1, limits.MaxLosslessInt)
	}
	for _, v := range c.array(m["required_checks"], "required_checks", 64) {
		rc := c.object(v, "required_check", []string{"name"})
		c.str(rc["name"], "required_check.name", 256, nil)
	}
	b := c.object(m["budget"], "budget", []string{"max_claims"})
	c.integer(b["max_claims"], "budget.max_claims", 0, limits.MaxLosslessInt)
	if _, ok := m["complete"].(bool); !ok {
		c.fail("complete is not a boolean")
	}
	kinds := map[any]bool{"claim": true, "conflict": true, "unknown": true, "omission": true, "required_check": true}
	for _, v := range c.array(m["projection_omissions"], "projection_omissions", 5) {
		o := c.object(v, "projection_omission", []string{"kind", "reason", "count"})
		if !kinds[o["kind"]] || o["reason"] != "unsafe_for_public_projection" {
			c.fail("projection_omission has an unknown kind or reason")
		}
		c.integer(o["count"], "projection_omission.count", 1, limits.MaxLosslessInt)
	}
	c.str(m["fingerprint"], "fingerprint", 71, digestRe)
	if c.err != nil {
		return nil, c.err
	}
	want := m["fingerprint"]
	delete(m, "fingerprint")
	got, err := canon.Fingerprint(m)
	if err != nil || got != want {
		return nil, fmt.Errorf("%w: the fingerprint does not match the capsule", ErrIntegrity)
	}
	var capsule Capsule
	if err := json.Unmarshal(data, &capsule); err != nil {
		return nil, fmt.Errorf("%w: not a capsule", ErrIntegrity)
	}
	return &capsule, nil
}
