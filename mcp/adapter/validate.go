package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
)

var aliasRe = regexp.MustCompile(aliasPattern)

// ValidAlias reports a workspace alias: 1-64 ASCII characters, letters,
// digits, ".", "_" and "-", starting with a letter or digit.
func ValidAlias(s string) bool { return aliasRe.MatchString(s) }

// errInvalid is any argument outside the schema or its runtime rules.
var errInvalid = errors.New("invalid tool arguments")

// args are the validated arguments of one call, defaults applied.
type args struct {
	Workspace    string
	Text         string // question or text
	Limit        int
	Budget       int
	SnippetChars int
	Explain      bool
	MaxClaims    int
	Types        []string
	Paths        []string
	Edges        []string
	CheckPaths   []string
	Strict       *bool
}

type argSpec struct {
	required []string
	strings  map[string]int      // name -> max code points (trimmed non-empty)
	ints     map[string][2]int64 // name -> [min,max]
	bools    map[string]bool     // name -> may be null
	arrays   map[string][2]int   // name -> [max items, max chars]
}

var specs = map[string]argSpec{
	ToolFind: {required: []string{"workspace", "question"}, strings: map[string]int{"workspace": MaxAliasChars, "question": MaxTextChars},
		ints: map[string][2]int64{"limit": {1, limits.MaxResults}, "budget": {limits.MinFindBudget, limits.MaxFindBudget}}},
	ToolQuery: {required: []string{"workspace", "text"}, strings: map[string]int{"workspace": MaxAliasChars, "text": MaxTextChars},
		ints: map[string][2]int64{"limit": {1, limits.MaxResults}, "snippet_chars": {0, limits.MaxSnippetChars}}, bools: map[string]bool{"explain": false},
		arrays: map[string][2]int{"type_filters": {limits.MaxFilters, limits.MaxTypeFilterChars}, "path_filters": {limits.MaxFilters, limits.MaxPathChars},
			"edge_filters": {limits.MaxFilters, limits.MaxEdgeFilterChars}}},
	ToolCheck: {required: []string{"workspace"}, strings: map[string]int{"workspace": MaxAliasChars},
		bools: map[string]bool{"strict": true}, arrays: map[string][2]int{"paths": {limits.MaxCheckPaths, limits.MaxPathChars}}},
	ToolCapsule: {required: []string{"workspace", "question"}, strings: map[string]int{"workspace": MaxAliasChars, "question": MaxTextChars},
		ints: map[string][2]int64{"max_claims": {0, limits.MaxClaims}}},
}

// decodeObject decodes raw into a map of raw values, refusing duplicate
// keys and anything but one JSON object.
func decodeObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return map[string]json.RawMessage{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, errInvalid
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, errInvalid
		}
		k, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errInvalid
		}
		if _, dup := out[k]; dup {
			return nil, errInvalid
		}
		out[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, errInvalid
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errInvalid
	}
	return out, nil
}

func jsonString(v json.RawMessage) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil || !utf8.ValidString(s) {
		return "", false
	}
	return s, true
}

// jsonInt accepts an integer literal only: 5.0, 5e0 and booleans are refused.
func jsonInt(v json.RawMessage) (int64, bool) {
	s := string(v)
	if s == "" || strings.ContainsAny(s, ".eE") {
		return 0, false
	}
	var n json.Number
	if json.Unmarshal(v, &n) != nil {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// validateArgs applies the closed schema and the runtime rules that are
// stricter than it: trimmed non-empty strings, code-point lengths, integer
// literals only, unique array items, and safe check paths.
func validateArgs(tool string, raw json.RawMessage) (*args, error) {
	spec, ok := specs[tool]
	if !ok {
		return nil, errInvalid
	}
	obj, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	for _, r := range spec.required {
		if _, ok := obj[r]; !ok {
			return nil, errInvalid
		}
	}
	a := &args{Limit: limits.DefaultFindResults, Budget: limits.DefaultFindBudget, SnippetChars: limits.DefaultSnippetChars, MaxClaims: limits.DefaultClaims}
	if tool == ToolQuery {
		a.Limit = limits.DefaultQueryResults
	}
	for k, v := range obj {
		switch {
		case spec.strings[k] > 0:
			s, ok := jsonString(v)
			if !ok || guard.TrimSpace(s) == "" || utf8.RuneCountInString(s) > spec.strings[k] {
				return nil, errInvalid
			}
			if k == "workspace" {
				if !ValidAlias(s) {
					return nil, errInvalid
				}
				a.Workspace = s
			} else {
				a.Text = s
			}
		case spec.ints[k] != [2]int64{}:
			n, ok := jsonInt(v)
			if r := spec.ints[k]; !ok || n < r[0] || n > r[1] {
				return nil, errInvalid
			}
			switch k {
			case "limit":
				a.Limit = int(n)
			case "budget":
				a.Budget = int(n)
			case "snippet_chars":
				a.SnippetChars = int(n)
			case "max_claims":
				a.MaxClaims = int(n)
			}
		case hasBool(spec, k):
			if string(v) == "null" && spec.bools[k] {
				continue
			}
			var b bool
			if string(v) != "true" && string(v) != "false" {
				return nil, errInvalid
			}
			b = string(v) == "true"
			if k == "explain" {
				a.Explain = b
			} else {
				a.Strict = &b
			}
		case spec.arrays[k] != [2]int{}:
			list, err := stringArray(v, spec.arrays[k][0], spec.arrays[k][1])
			if err != nil {
				return nil, err
			}
			switch k {
			case "type_filters":
				a.Types = list
			case "path_filters":
				a.Paths = list
			case "edge_filters":
				a.Edges = list
			case "paths":
				for _, p := range list {
					if !guard.RelPathShape(p) {
						return nil, errInvalid
					}
				}
				a.CheckPaths = list
			}
		default:
			return nil, errInvalid
		}
	}
	return a, nil
}

func hasBool(s argSpec, k string) bool { _, ok := s.bools[k]; return ok }

func stringArray(v json.RawMessage, maxItems, maxChars int) ([]string, error) {
	if len(v) == 0 || v[0] != '[' {
		return nil, errInvalid
	}
	var raw []json.RawMessage
	if json.Unmarshal(v, &raw) != nil || len(raw) > maxItems {
		return nil, errInvalid
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		s, ok := jsonString(r)
		if !ok || s == "" || utf8.RuneCountInString(s) > maxChars || seen[s] {
			return nil, errInvalid
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}
