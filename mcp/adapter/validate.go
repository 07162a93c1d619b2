package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
)

var aliasRe = regexp.MustCompile(aliasPattern)

// ValidAlias reports a workspace alias: 1-64 ASCII characters, letters,
// digits, ".", "_" and "-", starting with a letter or digit.
func ValidAlias(s string) bool { return aliasRe.MatchString(s) }

// argError is an argument outside the schema or its runtime rules. Its
// detail names the argument and the rule it broke, never the value; arg is
// the argument's name, or "" when the arguments as a whole are wrong or
// the name is not safe to show.
type argError struct {
	arg    string
	detail string
}

func (e *argError) Error() string { return e.detail }

func bad(arg, format string, a ...any) error {
	return &argError{arg: arg, detail: fmt.Sprintf(format, a...)}
}

// nameShape is what an argument name the caller made up must look like to
// be repeated in a refusal: a misspelt schema key, words of lowercase
// letters joined by '_'. Anything else (a value pasted where a name
// belongs, a credential) is described, never shown.
var nameShape = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// shownName is name, quoted, when it is safe to repeat, else "". Beyond
// the shape and the credential screen (made for text, which lets a bare
// key such as 32 lowercase hex digits pass), a name is shown only when it
// reads like words: no part between '_' longer than 16 characters, and at
// most 3 digits in all. A random key almost never does.
func shownName(name string) string {
	if !nameShape.MatchString(name) || !guard.OutputSafe(name, 32) {
		return ""
	}
	digits := 0
	for _, c := range name {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	if digits > 3 || slices.ContainsFunc(strings.Split(name, "_"), func(part string) bool { return len(part) > 16 }) {
		return ""
	}
	return strconv.Quote(name)
}

const hiddenName = "(its name is not shown: only a name like a schema key is repeated: 1-32 lowercase letters, digits and '_', " +
	"at most 16 between two '_', at most 3 digits)"

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
	notObject := bad("", "the arguments must be one JSON object")
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, notObject
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, notObject
		}
		k, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, notObject
		}
		if _, dup := out[k]; dup {
			if n := shownName(k); n != "" {
				return nil, bad(k, "argument %s is given twice; give each argument once", n)
			}
			return nil, bad("", "an argument is given twice %s; give each argument once", hiddenName)
		}
		out[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, notObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, notObject
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

// names lists a tool's arguments: the required ones first, then the rest
// in name order.
func (spec argSpec) names() []string {
	var rest []string
	for _, m := range []map[string]bool{keys(spec.strings), keys(spec.ints), spec.bools, keys(spec.arrays)} {
		for k := range m {
			if !slices.Contains(spec.required, k) {
				rest = append(rest, k)
			}
		}
	}
	slices.Sort(rest)
	return append(slices.Clone(spec.required), rest...)
}

func keys[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// validateArgs applies the closed schema and the runtime rules that are
// stricter than it: trimmed non-empty strings, code-point lengths, integer
// literals only, unique array items, and safe check paths. Arguments are
// judged in name order, so the same call always names the same problem.
func validateArgs(tool string, raw json.RawMessage) (*args, error) {
	spec, ok := specs[tool]
	if !ok {
		return nil, bad("", "unknown tool")
	}
	obj, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	for _, r := range spec.required {
		if _, ok := obj[r]; !ok {
			return nil, bad(r, "%s is required", r)
		}
	}
	a := &args{Limit: limits.DefaultFindResults, Budget: limits.DefaultFindBudget, SnippetChars: limits.DefaultSnippetChars, MaxClaims: limits.DefaultClaims}
	if tool == ToolQuery {
		a.Limit = limits.DefaultQueryResults
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		switch {
		case spec.strings[k] > 0:
			s, ok := jsonString(v)
			switch {
			case !ok:
				return nil, bad(k, "%s must be a string", k)
			case guard.TrimSpace(s) == "":
				return nil, bad(k, "%s must not be empty or whitespace", k)
			case utf8.RuneCountInString(s) > spec.strings[k]:
				return nil, bad(k, "%s is longer than %d characters", k, spec.strings[k])
			}
			if k == "workspace" {
				if !ValidAlias(s) {
					return nil, bad(k, "workspace must be one of the aliases vivary-mcp was started with: %s", aliasGrammar)
				}
				a.Workspace = s
			} else {
				a.Text = s
			}
		case spec.ints[k] != [2]int64{}:
			n, ok := jsonInt(v)
			r := spec.ints[k]
			switch {
			case !ok:
				return nil, bad(k, "%s must be a whole number written as an integer", k)
			case n < r[0] || n > r[1]:
				return nil, bad(k, "%s must be between %d and %d", k, r[0], r[1])
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
			if string(v) != "true" && string(v) != "false" {
				if spec.bools[k] {
					return nil, bad(k, "%s must be true, false or null", k)
				}
				return nil, bad(k, "%s must be true or false", k)
			}
			b := string(v) == "true"
			if k == "explain" {
				a.Explain = b
			} else {
				a.Strict = &b
			}
		case spec.arrays[k] != [2]int{}:
			list, err := stringArray(k, v, spec.arrays[k][0], spec.arrays[k][1])
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
				for i, p := range list {
					if rule := guard.PathShapeProblem(p); rule != "" {
						return nil, bad(k, "paths[%d] %s", i, rule)
					}
				}
				a.CheckPaths = list
			}
		default:
			takes := tool + " takes " + strings.Join(spec.names(), ", ")
			if n := shownName(k); n != "" {
				return nil, bad(k, "unknown argument %s; %s", n, takes)
			}
			return nil, bad("", "an unknown argument %s; %s", hiddenName, takes)
		}
	}
	return a, nil
}

func hasBool(s argSpec, k string) bool { _, ok := s.bools[k]; return ok }

func stringArray(name string, v json.RawMessage, maxItems, maxChars int) ([]string, error) {
	var raw []json.RawMessage
	if len(v) == 0 || v[0] != '[' || json.Unmarshal(v, &raw) != nil {
		return nil, bad(name, "%s must be an array of strings", name)
	}
	if len(raw) > maxItems {
		return nil, bad(name, "%s holds more than %d values", name, maxItems)
	}
	first := map[string]int{}
	out := make([]string, 0, len(raw))
	for i, r := range raw {
		s, ok := jsonString(r)
		switch {
		case !ok:
			return nil, bad(name, "%s[%d] must be a string", name, i)
		case s == "":
			return nil, bad(name, "%s[%d] must not be empty", name, i)
		case utf8.RuneCountInString(s) > maxChars:
			return nil, bad(name, "%s[%d] is longer than %d characters", name, i, maxChars)
		}
		if j, dup := first[s]; dup {
			return nil, bad(name, "%s[%d] repeats %s[%d]; give each value once", name, i, name, j)
		}
		first[s] = i
		out = append(out, s)
	}
	return out, nil
}
