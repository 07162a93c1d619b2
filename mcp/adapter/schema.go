package adapter

import (
	"encoding/json"

	"github.com/vivary-dev/vivary-go/capsule"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/produce"
)

// Tool names, in the order tools/list returns them.
const (
	ToolFind    = "vivary_find"
	ToolQuery   = "vivary_query"
	ToolCheck   = "vivary_check"
	ToolCapsule = "vivary_capsule"
)

// ToolNames is the closed tool list in listing order.
var ToolNames = []string{ToolFind, ToolQuery, ToolCheck, ToolCapsule}

var toolNames = map[string]bool{ToolFind: true, ToolQuery: true, ToolCheck: true, ToolCapsule: true}

const aliasPattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`

func workspaceProp() map[string]any {
	return map[string]any{"type": "string", "minLength": 1, "maxLength": MaxAliasChars, "pattern": aliasPattern}
}

func textProp() map[string]any {
	return map[string]any{"type": "string", "minLength": 1, "maxLength": MaxTextChars}
}

func intProp(min, max, def int) map[string]any {
	return map[string]any{"type": "integer", "minimum": min, "maximum": max, "default": def}
}

func strArray(n, m int) map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string", "minLength": 1, "maxLength": m},
		"maxItems": n, "uniqueItems": true, "default": []any{}}
}

func closed(props map[string]any, required ...string) map[string]any {
	return map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
		"properties": props, "required": required, "additionalProperties": false}
}

// InputSchema is the closed input schema of a tool.
func InputSchema(tool string) map[string]any {
	switch tool {
	case ToolFind:
		return closed(map[string]any{"workspace": workspaceProp(), "question": textProp(),
			"limit": intProp(1, limits.MaxResults, limits.DefaultFindResults), "budget": intProp(limits.MinFindBudget, limits.MaxFindBudget, limits.DefaultFindBudget)}, "workspace", "question")
	case ToolQuery:
		return closed(map[string]any{"workspace": workspaceProp(), "text": textProp(), "limit": intProp(1, limits.MaxResults, limits.DefaultQueryResults),
			"type_filters": strArray(limits.MaxFilters, limits.MaxTypeFilterChars), "path_filters": strArray(limits.MaxFilters, limits.MaxPathChars),
			"edge_filters": strArray(limits.MaxFilters, limits.MaxEdgeFilterChars), "snippet_chars": intProp(0, limits.MaxSnippetChars, limits.DefaultSnippetChars),
			"explain": map[string]any{"type": "boolean", "default": false}}, "workspace", "text")
	case ToolCheck:
		return closed(map[string]any{"workspace": workspaceProp(), "paths": strArray(limits.MaxCheckPaths, limits.MaxPathChars),
			"strict": map[string]any{"type": "boolean"}}, "workspace")
	case ToolCapsule:
		return closed(map[string]any{"workspace": workspaceProp(), "question": textProp(),
			"max_claims": intProp(0, limits.MaxClaims, limits.DefaultClaims)}, "workspace", "question")
	}
	return nil
}

func producerSchema(tool string) map[string]any {
	switch tool {
	case ToolFind:
		return produce.FindSchema()
	case ToolQuery:
		return produce.QuerySchema()
	case ToolCheck:
		return produce.CheckSchema()
	}
	return capsule.Schema()
}

// OutputSchema is the closed envelope schema with the tool's producer
// schema embedded under $defs/producer. The embedded copy drops its own
// $schema and $id, so the only reference, #/$defs/producer, resolves
// against the envelope itself.
func OutputSchema(tool string) map[string]any {
	prod := producerSchema(tool)
	delete(prod, "$schema")
	delete(prod, "$id")
	items := map[string]any{"type": "object", "properties": map[string]any{
		"kind":   map[string]any{"type": "string", "minLength": 1, "maxLength": 64},
		"reason": map[string]any{"type": "string", "minLength": 1, "maxLength": 64},
		"count":  map[string]any{"type": "integer", "minimum": 1}},
		"required": []any{"kind", "reason", "count"}, "additionalProperties": false}
	return map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
		"properties": map[string]any{
			"schema":    map[string]any{"const": EnvelopeSchema},
			"tool":      map[string]any{"enum": []any{ToolFind, ToolQuery, ToolCheck, ToolCapsule}},
			"status":    map[string]any{"enum": []any{"known", "unknown", "refused"}},
			"complete":  map[string]any{"type": "boolean"},
			"workspace": workspaceProp(),
			"reason":    map[string]any{"type": []any{"string", "null"}},
			"result":    map[string]any{"oneOf": []any{map[string]any{"$ref": "#/$defs/producer"}, map[string]any{"type": "null"}}},
			"omissions": map[string]any{"type": "array", "maxItems": MaxEnvelopeOmissions, "items": items},
			"message":   map[string]any{"type": "string", "minLength": 1, "maxLength": MaxMessageChars},
		},
		"required":             []any{"schema", "tool", "status", "complete", "workspace", "reason", "result", "omissions"},
		"additionalProperties": false,
		"$defs":                map[string]any{"producer": prod},
	}
}

func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
