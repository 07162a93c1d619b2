package produce

import (
	"encoding/json"
	"strconv"

	"github.com/vivary-dev/vivary-go/limits"
)

// The published result schemas (closed JSON Schema Draft 2020-12). They live
// with the producers they describe; an adapter embeds copies. Each call
// returns a fresh copy, so a caller may change it freely.

const omissionSchema = `{"type":"object","properties":{"kind":{"type":"string","minLength":1,"maxLength":64},"reason":{"type":"string","minLength":1,"maxLength":64},"count":{"type":"integer","minimum":1}},"required":["kind","reason","count"],"additionalProperties":false}`

const filtersSchema = `{"type":"object","properties":{"type":{"type":"array","maxItems":16,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":128}},"path":{"type":"array","maxItems":16,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":512}},"edge":{"type":"array","maxItems":16,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256}}},"required":["type","path","edge"],"additionalProperties":false}`

const edgeSchema = `{"type":"object","properties":{"field":{"type":"string","minLength":1,"maxLength":128},"to":{"type":"string","minLength":1,"maxLength":256}},"required":["field","to"],"additionalProperties":false}`

const fingerprintSchema = `{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}`

var querySchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{` +
	`"schema":{"const":"vivary.query-result/v0"},"query":{"type":"string","minLength":1,"maxLength":4096},"k":{"type":"integer","minimum":1,"maximum":20},` +
	`"filters":` + filtersSchema + `,"results":{"type":"array","maxItems":20,"items":{"type":"object","properties":{` +
	`"id":{"type":"string","minLength":1,"maxLength":512},"type":{"oneOf":[{"type":"string","minLength":1,"maxLength":128},{"type":"null"}]},` +
	`"path":{"type":"string","minLength":1,"maxLength":512},"title":{"type":"string","minLength":1,"maxLength":512},"score":{"type":"integer","minimum":1},` +
	`"snippet":{"oneOf":[{"type":"string","minLength":1,"maxLength":1006},{"type":"null"}]},"reasons":{"type":"array","maxItems":8,"items":{"type":"string","minLength":1,"maxLength":64}},` +
	`"edges":{"type":"array","maxItems":64,"items":` + edgeSchema + `}},"required":["id","type","path","title","score","snippet","reasons","edges"],"additionalProperties":false}},` +
	`"complete":{"type":"boolean"},"workspace_fingerprint":` + fingerprintSchema + `,"omissions":{"type":"array","maxItems":16,"items":` + omissionSchema + `}},` +
	`"required":["schema","query","k","filters","results","complete","workspace_fingerprint","omissions"],"additionalProperties":false}`

var findSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{` +
	`"schema":{"const":"vivary.find-result/v0"},"query":{"type":"string","minLength":1,"maxLength":4096},"k":{"type":"integer","minimum":1,"maximum":20},` +
	`"budget":{"type":"integer","minimum":64,"maximum":4000},"estimated_tokens":{"type":"integer","minimum":0,"maximum":4000},` +
	`"filters":` + filtersSchema + `,"results":{"type":"array","maxItems":20,"items":{"type":"object","properties":{` +
	`"id":{"type":"string","minLength":1,"maxLength":512},"type":{"oneOf":[{"type":"string","minLength":1,"maxLength":128},{"type":"null"}]},` +
	`"path":{"type":"string","minLength":1,"maxLength":512},"reason":{"type":"string","minLength":1,"maxLength":128},` +
	`"snippet":{"oneOf":[{"type":"string","minLength":1,"maxLength":1006},{"type":"null"}]},"edges":{"type":"array","maxItems":64,"items":` + edgeSchema + `}},` +
	`"required":["id","type","path","reason","snippet","edges"],"additionalProperties":false}},` +
	`"complete":{"type":"boolean"},"workspace_fingerprint":` + fingerprintSchema + `,"omissions":{"type":"array","maxItems":16,"items":` + omissionSchema + `}},` +
	`"required":["schema","query","k","budget","estimated_tokens","filters","results","complete","workspace_fingerprint","omissions"],"additionalProperties":false}`

// maxFiles bounds a check's counts: it reads at most that many documents.
var maxFiles = strconv.Itoa(limits.MaxMarkdownFiles)

var checkSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{` +
	`"schema":{"const":"vivary.check-result/v0"},"checked":{"type":"integer","minimum":0,"maximum":` + maxFiles + `},"clean":{"type":"integer","minimum":0,"maximum":` + maxFiles + `},` +
	`"errors":{"type":"integer","minimum":0},"warnings":{"type":"integer","minimum":0},"findings":{"type":"array","maxItems":200,"items":{"type":"object","properties":{` +
	`"path":{"type":"string","minLength":1,"maxLength":512},"line":{"type":"integer","minimum":0},"level":{"enum":["error","warning"]},` +
	`"code":{"type":"string","minLength":1,"maxLength":16},"message":{"type":"string","minLength":1,"maxLength":256}},"required":["path","line","level","code","message"],"additionalProperties":false}},` +
	`"strict":{"type":"boolean"},"complete":{"type":"boolean"},"workspace_fingerprint":` + fingerprintSchema + `,"omissions":{"type":"array","maxItems":16,"items":` + omissionSchema + `}},` +
	`"required":["schema","checked","clean","errors","warnings","findings","strict","complete","workspace_fingerprint","omissions"],"additionalProperties":false}`

func schemaCopy(s string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic("produce: a built-in schema is not JSON: " + err.Error())
	}
	return m
}

// QuerySchema, FindSchema and CheckSchema return fresh copies of the
// result schemas.
func QuerySchema() map[string]any { return schemaCopy(querySchema) }
func FindSchema() map[string]any  { return schemaCopy(findSchema) }
func CheckSchema() map[string]any { return schemaCopy(checkSchema) }
