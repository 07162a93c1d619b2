package capsule

import "encoding/json"

// The published capsule schema (closed JSON Schema Draft 2020-12), with the
// capsule it describes; an adapter embeds a copy.

const fingerprintSchema = `{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}`

const safeText = `{"type":"string","minLength":1,"maxLength":4096}`
const factID = `{"type":"string","pattern":"^[a-z][a-z0-9_]{0,63}$"}`

var capsuleSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"urn:vivary:public-task-capsule:v0","title":"Vivary Public Task Capsule v0","type":"object","properties":{` +
	`"schema":{"const":"vivary.public-task-capsule/v0"},"capsule_id":{"type":"string","minLength":1,"maxLength":128},` +
	`"workspace":{"type":"object","properties":{"fingerprint":` + fingerprintSchema + `,"content_fingerprint":` + fingerprintSchema + `,"repair_topology_fingerprint":` + fingerprintSchema + `},"required":["fingerprint"],"additionalProperties":false},` +
	`"claims":{"type":"array","maxItems":24,"items":{"type":"object","properties":{"fact":` + factID + `,"claim":` + safeText + `,"status":{"const":"known"},"selection_reason":` + safeText + `},"required":["fact","claim","status","selection_reason"],"additionalProperties":false}},` +
	`"conflict_count":{"type":"integer","minimum":0},` +
	`"unknowns":{"type":"array","maxItems":64,"items":{"type":"object","properties":{"kind":` + factID + `,"fact":{"oneOf":[` + factID + `,{"type":"null"}]},"reason":` + safeText + `},"required":["kind","fact","reason"],"additionalProperties":false}},` +
	`"omissions":{"type":"array","maxItems":64,"items":{"type":"object","properties":{"kind":` + factID + `,"reason":` + safeText + `,"count":{"type":"integer","minimum":1}},"required":["kind","reason","count"],"additionalProperties":false}},` +
	`"required_checks":{"type":"array","maxItems":64,"items":{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":256}},"required":["name"],"additionalProperties":false}},` +
	`"budget":{"type":"object","properties":{"max_claims":{"type":"integer","minimum":0,"maximum":9007199254740991}},"required":["max_claims"],"additionalProperties":false},` +
	`"complete":{"type":"boolean"},` +
	`"projection_omissions":{"type":"array","maxItems":5,"items":{"type":"object","properties":{"kind":{"enum":["claim","conflict","unknown","omission","required_check"]},"reason":{"const":"unsafe_for_public_projection"},"count":{"type":"integer","minimum":1}},"required":["kind","reason","count"],"additionalProperties":false}},` +
	`"fingerprint":` + fingerprintSchema + `},` +
	`"required":["schema","capsule_id","workspace","claims","conflict_count","unknowns","omissions","required_checks","budget","complete","projection_omissions","fingerprint"],"additionalProperties":false}`

// Schema returns a fresh copy of the capsule's schema, so a caller may change it freely.
func Schema() map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(capsuleSchema), &m); err != nil {
		panic("capsule: the built-in schema is not JSON: " + err.Error())
	}
	return m
}
