package policy

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
)

// ThinConfigPath and OverlayPath are the two root policy files.
const (
	ThinConfigPath = ".vivary/workspace.toml"
	OverlayPath    = "tropo.toml"
	ThinContract   = "thin-v0.3"
)

// DefaultExclude is always excluded and pruned silently during enumeration.
var DefaultExclude = []string{".git", ".tropo", ".claude", "node_modules", ".obsidian"}

// TypeDef is one document type.
type TypeDef struct {
	Name     string
	Folders  []string
	Required map[string]string
	Optional map[string]string
}

// Config is the composed type policy of a workspace.
type Config struct {
	Exclude      []string // includes DefaultExclude
	Derive       []string
	Required     map[string]string // base
	Optional     map[string]string // base
	AllowUntyped bool
	Strict       bool
	Types        map[string]*TypeDef
	FolderMap    map[string]string // folder key -> type name
	Thin         bool
	State        string
	Private      []string
	Runtime      []string
	Capabilities []string
	Adapters     []string
	Preset       string
	Roles        map[string][]string
}

// ConfigError is a policy file that cannot be used. Its message names the
// key, never the value.
type ConfigError struct {
	Msg  string
	Line int // the file line at fault, 0 when not known
}

func (e *ConfigError) Error() string { return e.Msg }

func cfgErr(format string, a ...any) error { return &ConfigError{Msg: fmt.Sprintf(format, a...)} }

// DefaultConfig is what a workspace with no policy file gets.
func DefaultConfig() *Config {
	return &Config{
		Exclude: append([]string(nil), DefaultExclude...), AllowUntyped: true, Strict: true,
		Required: map[string]string{}, Optional: map[string]string{},
		Types: map[string]*TypeDef{}, FolderMap: map[string]string{},
	}
}

// factType is the vivary_fact type every thin workspace has.
func factType() *TypeDef {
	return &TypeDef{
		Name: "vivary_fact", Folders: []string{".vivary/knowledge"},
		Required: map[string]string{"source": "string", "confirmed": "date"}, Optional: map[string]string{},
	}
}

// ParseTOML decodes a policy file strictly into a generic table.
func ParseTOML(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) && pe.Position.Line > 0 && len(data) > 0 {
			// The line of the offending byte: the parser counts the newline
			// that ends a line as the start of the next one.
			at := min(pe.Position.Start, len(data)-1)
			line := 1 + bytes.Count(data[:max(at, 0)], []byte("\n"))
			// The parser's own words only when they are safe to show:
			// they can quote the file.
			msg := fmt.Sprintf("not valid TOML at line %d", line)
			if detail := strings.TrimSpace(pe.Message); guard.OutputSafe(detail, 200) {
				msg += ": " + detail
			}
			return nil, &ConfigError{Msg: msg, Line: line}
		}
		return nil, cfgErr("not valid TOML")
	}
	return raw, nil
}

var (
	thinTopKeys    = set("version", "exclude", "packs", "workspace", "base", "types")
	overlayTopKeys = set("version", "exclude", "packs", "base", "types")
	baseKeys       = set("derive", "required", "optional", "allow_untyped", "strict")
	typeKeys       = set("folder", "required", "optional")
	workspaceKeys  = set("contract", "preset", "state", "private", "runtime", "adapters", "capabilities", "vivary")
	vivaryKeys     = set("version", "patterns", "roles")
	roleNames      = []string{"law", "map", "record", "memory", "boundary"}
	derivedFields  = set("id", "slug", "title", "created", "updated")
	capStorage     = map[string]string{"cocoindex-code": ".cocoindex_code"}
)

func checkKeys(t map[string]any, allowed map[string]bool, where string) error {
	for k := range t {
		if !allowed[k] {
			return cfgErr("unknown key in %s", where)
		}
	}
	return nil
}

func strList(v any, max, maxLen int, what string) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, cfgErr("%s must be a list of strings", what)
	}
	if len(arr) > max {
		return nil, cfgErr("%s has more than %d entries", what, max)
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok || !guard.SafeText(s, maxLen) {
			return nil, cfgErr("%s entries must be non-empty printable strings of at most %d characters", what, maxLen)
		}
		out = append(out, s)
	}
	return out, nil
}

func relPolicyPath(s string) (string, bool) {
	s = strings.TrimRight(strings.ReplaceAll(s, `\`, "/"), "/")
	return s, guard.SafeRelPath(s, limits.MaxPathChars)
}

// validateThin checks the [workspace] contract of .vivary/workspace.toml.
func validateThin(raw map[string]any, c *Config) error {
	if err := checkKeys(raw, thinTopKeys, "workspace.toml"); err != nil {
		return err
	}
	v, ok := raw["version"].(int64)
	if !ok || v != 1 {
		return cfgErr("workspace.toml version must be the integer 1")
	}
	ws, ok := raw["workspace"].(map[string]any)
	if !ok {
		return cfgErr("workspace.toml needs a [workspace] table")
	}
	if err := checkKeys(ws, workspaceKeys, "[workspace]"); err != nil {
		return err
	}
	if ws["contract"] != ThinContract {
		return cfgErr("workspace.contract must be %q", ThinContract)
	}
	preset, ok := ws["preset"].(string)
	if !ok || strings.TrimSpace(preset) == "" {
		return cfgErr("workspace.preset must be a non-empty string")
	}
	c.Preset = preset
	state, ok := ws["state"].(string)
	if !ok {
		return cfgErr("workspace.state must be a relative path")
	}
	if c.State, ok = relPolicyPath(state); !ok {
		return cfgErr("workspace.state must be a relative path")
	}
	for _, key := range []string{"private", "runtime"} {
		list, err := strList(ws[key], limits.MaxConfigExclude, limits.MaxPathChars, "workspace."+key)
		if err != nil || len(list) == 0 {
			return cfgErr("workspace.%s must be a non-empty list of relative paths", key)
		}
		for i, p := range list {
			if list[i], ok = relPolicyPath(p); !ok {
				return cfgErr("workspace.%s must be a non-empty list of relative paths", key)
			}
		}
		if key == "private" {
			c.Private = list
		} else {
			c.Runtime = list
		}
	}
	adapters, err := uniqueSubset(ws["adapters"], set("agents", "claude"), "workspace.adapters", true)
	if err != nil {
		return err
	}
	c.Adapters = adapters
	caps, err := uniqueSubset(ws["capabilities"], set("cocoindex-code"), "workspace.capabilities", false)
	if err != nil {
		return err
	}
	c.Capabilities = caps
	exclude, err := strList(orEmpty(raw["exclude"]), limits.MaxConfigExclude, limits.MaxPathChars, "exclude")
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, e := range exclude {
		have[strings.Trim(strings.ReplaceAll(e, `\`, "/"), "/")] = true
	}
	need := append(append([]string{}, c.Private...), c.Runtime...)
	for _, cp := range caps {
		need = append(need, capStorage[cp])
	}
	for _, n := range need {
		if !have[n] {
			return cfgErr("exclude must list every private, runtime and capability path")
		}
	}
	c.Roles = map[string][]string{
		"law": {"AGENTS.md", ".vivary/context.md"}, "map": {".vivary/context.md"}, "record": {}, "memory": {},
		"boundary": append([]string{".gitignore"}, need...),
	}
	if vv, present := ws["vivary"]; present {
		vt, ok := vv.(map[string]any)
		if !ok {
			return cfgErr("[workspace.vivary] must be a table")
		}
		if err := checkKeys(vt, vivaryKeys, "[workspace.vivary]"); err != nil {
			return err
		}
		if ver, ok := vt["version"].(int64); !ok || ver != 1 {
			return cfgErr("workspace.vivary.version must be the integer 1")
		}
		if p, present := vt["patterns"]; present {
			if _, err := uniqueSubset(p, set("thin-context", "capture", "source-reference", "navigation", "project-brief"), "workspace.vivary.patterns", true); err != nil {
				return err
			}
		}
		if r, present := vt["roles"]; present {
			rt, ok := r.(map[string]any)
			if !ok {
				return cfgErr("[workspace.vivary.roles] must be a table")
			}
			if err := checkKeys(rt, set(roleNames...), "[workspace.vivary.roles]"); err != nil {
				return err
			}
			for k, v := range rt {
				list, err := strList(v, limits.MaxConfigExclude, limits.MaxPathChars, "workspace.vivary.roles."+k)
				if err != nil {
					return err
				}
				c.Roles[k] = list
			}
		}
	}
	c.Thin = true
	return nil
}

func orEmpty(v any) any {
	if v == nil {
		return []any{}
	}
	return v
}

func uniqueSubset(v any, allowed map[string]bool, what string, required bool) ([]string, error) {
	if v == nil {
		if required {
			return nil, cfgErr("%s is required", what)
		}
		return []string{}, nil
	}
	list, err := strList(v, 16, 128, what)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, s := range list {
		if !allowed[s] || seen[s] {
			return nil, cfgErr("%s holds an unknown or repeated name", what)
		}
		seen[s] = true
	}
	sort.Strings(list)
	return list, nil
}

// ValidSpec reports a known field spec.
func ValidSpec(s string) bool {
	switch s {
	case "any", "string", "date", "datetime", "slug", "ref", "url", "list", "string-list", "ref-list", "bool", "number":
		return true
	}
	if strings.HasPrefix(s, "enum:") {
		for _, v := range strings.Split(s[5:], "|") {
			if v == "" {
				return false
			}
		}
		return len(s) > 5
	}
	return false
}

func fieldMap(v any, what string) (map[string]string, error) {
	if v == nil {
		return map[string]string{}, nil
	}
	t, ok := v.(map[string]any)
	if !ok {
		return nil, cfgErr("%s must be a table of field = spec", what)
	}
	if len(t) > limits.MaxConfigFields {
		return nil, cfgErr("%s has more than %d fields", what, limits.MaxConfigFields)
	}
	out := map[string]string{}
	for k, sv := range t {
		s, ok := sv.(string)
		if !guard.SafeText(k, limits.MaxFieldChars) || !ok || !ValidSpec(s) {
			return nil, cfgErr("%s holds an unknown field spec", what)
		}
		out[k] = s
	}
	return out, nil
}

// layer is one parsed policy file, ready to merge.
type layer struct {
	exclude            []string
	derive             []string
	required, optional map[string]string
	allowUntyped       *bool
	strict             *bool
	types              []*TypeDef
	packs              []string
}

func parseLayer(raw map[string]any, thin bool) (*layer, error) {
	top := overlayTopKeys
	if thin {
		top = thinTopKeys
	}
	if err := checkKeys(raw, top, "policy file"); err != nil {
		return nil, err
	}
	l := &layer{required: map[string]string{}, optional: map[string]string{}}
	var err error
	if l.exclude, err = strList(orEmpty(raw["exclude"]), limits.MaxConfigExclude, limits.MaxPathChars, "exclude"); err != nil {
		return nil, err
	}
	if l.packs, err = strList(orEmpty(raw["packs"]), 16, 128, "packs"); err != nil {
		return nil, err
	}
	if b, present := raw["base"]; present {
		bt, ok := b.(map[string]any)
		if !ok {
			return nil, cfgErr("[base] must be a table")
		}
		if err := checkKeys(bt, baseKeys, "[base]"); err != nil {
			return nil, err
		}
		if l.derive, err = strList(orEmpty(bt["derive"]), limits.MaxConfigDerive, 128, "base.derive"); err != nil {
			return nil, err
		}
		for _, d := range l.derive {
			if !derivedFields[d] {
				return nil, cfgErr("base.derive names an unknown derived field")
			}
		}
		if l.required, err = fieldMap(bt["required"], "base.required"); err != nil {
			return nil, err
		}
		if l.optional, err = fieldMap(bt["optional"], "base.optional"); err != nil {
			return nil, err
		}
		for _, k := range []string{"allow_untyped", "strict"} {
			if v, present := bt[k]; present {
				bv, ok := v.(bool)
				if !ok {
					return nil, cfgErr("base.%s must be true or false", k)
				}
				if k == "strict" {
					l.strict = &bv
				} else {
					l.allowUntyped = &bv
				}
			}
		}
	}
	if tv, present := raw["types"]; present {
		tt, ok := tv.(map[string]any)
		if !ok {
			return nil, cfgErr("[types] must be a table")
		}
		if len(tt) > limits.MaxConfigTypes {
			return nil, cfgErr("more than %d types", limits.MaxConfigTypes)
		}
		names := make([]string, 0, len(tt))
		for n := range tt {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			def, ok := tt[n].(map[string]any)
			if !guard.SafeText(n, 128) || !ok {
				return nil, cfgErr("a type name is unsafe or its definition is not a table")
			}
			if err := checkKeys(def, typeKeys, "a [types] table"); err != nil {
				return nil, err
			}
			td := &TypeDef{Name: n}
			switch f := def["folder"].(type) {
			case nil:
				td.Folders = []string{n}
			case string:
				td.Folders = []string{f}
			default:
				if td.Folders, err = strList(f, limits.MaxTypeFolders, limits.MaxPathChars, "types.folder"); err != nil {
					return nil, err
				}
			}
			for i, f := range td.Folders {
				if !guard.SafeText(f, limits.MaxPathChars) {
					return nil, cfgErr("types.folder entries must be printable")
				}
				td.Folders[i] = strings.Trim(strings.ReplaceAll(f, `\`, "/"), "/")
			}
			if td.Required, err = fieldMap(def["required"], "types.required"); err != nil {
				return nil, err
			}
			if td.Optional, err = fieldMap(def["optional"], "types.optional"); err != nil {
				return nil, err
			}
			l.types = append(l.types, td)
		}
	}
	return l, nil
}

// tightenField merges one field spec of an overlay into the composed fields.
func tightenField(req, opt map[string]string, name, spec string, required, first bool) error {
	old, wasReq := req[name]
	if !wasReq {
		old = opt[name]
	}
	exists := wasReq || opt[name] != ""
	if exists && !first {
		if old != spec && !enumNarrows(old, spec) {
			return cfgErr("E120 overlay changes a field spec instead of tightening it")
		}
		if wasReq && !required {
			return cfgErr("E120 overlay makes a required field optional")
		}
	}
	if required {
		delete(opt, name)
		req[name] = spec
	} else {
		opt[name] = spec
	}
	return nil
}

func enumNarrows(old, spec string) bool {
	if !strings.HasPrefix(old, "enum:") || !strings.HasPrefix(spec, "enum:") {
		return false
	}
	have := set(strings.Split(old[5:], "|")...)
	for _, v := range strings.Split(spec[5:], "|") {
		if !have[v] {
			return false
		}
	}
	return true
}

func union(a, b []string) []string {
	seen := set(a...)
	for _, x := range b {
		if !seen[x] {
			a = append(a, x)
			seen[x] = true
		}
	}
	return a
}

// merge applies a layer tighten-only (the first layer sets freely).
func (c *Config) merge(l *layer, first bool) error {
	c.Exclude = union(c.Exclude, l.exclude)
	c.Derive = union(c.Derive, l.derive)
	if l.allowUntyped != nil {
		if !first && *l.allowUntyped && !c.AllowUntyped {
			return cfgErr("E120 overlay loosens allow_untyped")
		}
		c.AllowUntyped = *l.allowUntyped
	}
	if l.strict != nil {
		if !first && !*l.strict && c.Strict {
			return cfgErr("E120 overlay loosens strict")
		}
		c.Strict = *l.strict
	}
	if err := mergeFields(c.Required, c.Optional, l.required, l.optional, first); err != nil {
		return err
	}
	for _, td := range l.types {
		cur, ok := c.Types[td.Name]
		if !ok {
			cur = &TypeDef{Name: td.Name, Required: map[string]string{}, Optional: map[string]string{}}
			c.Types[td.Name] = cur
			if err := mergeFields(cur.Required, cur.Optional, td.Required, td.Optional, true); err != nil {
				return err
			}
		} else if err := mergeFields(cur.Required, cur.Optional, td.Required, td.Optional, first); err != nil {
			return err
		}
		cur.Folders = union(cur.Folders, td.Folders)
	}
	return nil
}

func mergeFields(req, opt, lreq, lopt map[string]string, first bool) error {
	for _, k := range slices.Sorted(maps.Keys(lreq)) {
		if err := tightenField(req, opt, k, lreq[k], true, first); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(lopt)) {
		if _, isReq := req[k]; isReq && !first {
			// listing a required field as optional only matters if it loosens
			if req[k] != lopt[k] && !enumNarrows(req[k], lopt[k]) {
				return cfgErr("E120 overlay changes a field spec instead of tightening it")
			}
			return cfgErr("E120 overlay makes a required field optional")
		}
		if err := tightenField(req, opt, k, lopt[k], false, first); err != nil {
			return err
		}
	}
	return nil
}

// finish builds the folder map; a folder claimed by two types is an error.
func (c *Config) finish() error {
	c.FolderMap = map[string]string{}
	for _, n := range slices.Sorted(maps.Keys(c.Types)) {
		for _, f := range c.Types[n].Folders {
			if other, dup := c.FolderMap[f]; dup && other != n {
				return cfgErr("a folder maps to two types")
			}
			c.FolderMap[f] = n
		}
	}
	return nil
}

// Compose builds the config from the parsed files in order: the thin file
// (when thin is true) and then the root overlay. Packs named by the first
// file are reported back as skipped: only bundled packs are honoured, and
// this build bundles none.
func Compose(files []map[string]any, thin bool) (*Config, []string, error) {
	c := DefaultConfig()
	var skippedPacks []string
	for i, raw := range files {
		isThin := thin && i == 0
		if isThin {
			if err := validateThin(raw, c); err != nil {
				return nil, nil, err
			}
		}
		l, err := parseLayer(raw, isThin)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			skippedPacks = l.packs
		}
		if err := c.merge(l, i == 0); err != nil {
			return nil, nil, err
		}
		if isThin {
			if _, ok := c.Types["vivary_fact"]; !ok {
				c.Types["vivary_fact"] = factType()
			}
		}
	}
	if err := c.finish(); err != nil {
		return nil, nil, err
	}
	return c, skippedPacks, nil
}

// IsExcluded is the exclude rule: a pattern (trailing "/" and "/**"
// stripped) matches rel itself, anything beneath it, or, when it has no
// slash, any equal path segment.
func IsExcluded(rel string, patterns []string) bool {
	for _, p := range patterns {
		p = strings.TrimSuffix(strings.TrimSuffix(p, "/**"), "/")
		if p == "" {
			continue
		}
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
		if !strings.Contains(p, "/") {
			for seg := range strings.SplitSeq(rel, "/") {
				if seg == p {
					return true
				}
			}
		}
	}
	return false
}
