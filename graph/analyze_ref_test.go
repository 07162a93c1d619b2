package graph

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/policy"
)

// analyzeRef is Analyze as it was before the spec lookups and the
// allocation-free Split, kept as the reference FuzzAnalyzeAgrees holds it to.
// It builds the document model of one admitted file and all of its
// findings except W220, which needs the whole graph.
func analyzeRef(cfg *policy.Config, rel, rootName, text string, mtime, ctime int64) *Document {
	text = strings.TrimPrefix(text, "\ufeff")
	d := &Document{Path: rel, Type: TypeFor(cfg, rel)}
	fmText, body, unclosed, has := splitRef(text)
	// Copies: a substring would keep the whole text alive (or, in a reused
	// read buffer, change under the document).
	fmText = strings.Clone(fmText)
	d.ID = DeriveID(rel, rootName)
	d.Title = strings.Clone(DeriveTitle(body, stripExt(rel[strings.LastIndexByte(rel, '/')+1:])))
	created := mtime
	if ctime > 0 && ctime < created {
		created = ctime
	}
	d.Created, d.Updated = localDate(created), localDate(mtime)
	d.FM = &Frontmatter{byKey: map[string]int{}}
	if unclosed {
		d.Findings = append(d.Findings, finding(rel, 1, "E001", whyUnclosed))
		return d
	}
	if has {
		fm, err := ParseFrontmatter(fmText)
		if err != nil {
			fe := &ErrFrontmatter{Line: 2, Why: whySyntax}
			errors.As(err, &fe)
			d.Findings = append(d.Findings, finding(rel, fe.Line, "E001", fe.Why))
			return d
		}
		d.FM = fm
	}
	typed := d.Type != ""
	if !typed && !cfg.AllowUntyped {
		d.Findings = append(d.Findings, finding(rel, 1, "W201", "no type's folder holds this path; move it into a typed folder"))
	}
	required := map[string]string{}
	optional := map[string]string{}
	for k, s := range cfg.Optional {
		optional[k] = s
	}
	for k, s := range cfg.Required {
		required[k] = s
	}
	if typed {
		td := cfg.Types[d.Type]
		for k, s := range td.Optional {
			if _, r := required[k]; !r {
				optional[k] = s
			}
		}
		for k, s := range td.Required {
			delete(optional, k)
			required[k] = s
		}
	}
	for _, k := range slices.Sorted(maps.Keys(required)) {
		v, ok := d.FM.Get(k)
		if !ok {
			d.Findings = append(d.Findings, finding(rel, 1, "E101", fieldName(k)))
			continue
		}
		if s, isStr := v.(string); v == nil || (isStr && s == "") {
			d.Findings = append(d.Findings, finding(rel, d.FM.Fields[d.FM.byKey[k]].Line, "E102", fieldName(k)))
		}
	}
	derive := map[string]bool{}
	for _, k := range cfg.Derive {
		derive[k] = true
	}
	derived := map[string]string{"id": d.ID, "slug": d.ID, "title": d.Title, "created": d.Created, "updated": d.Updated}
	for _, f := range d.FM.Fields {
		if derive[f.Key] {
			if (typed || !cfg.AllowUntyped) && Stringify(f.Value) == derived[f.Key] {
				d.Findings = append(d.Findings, finding(rel, f.Line, "W210", redundantDetail(f.Key)))
			}
			continue
		}
		spec, isReq := required[f.Key]
		if !isReq {
			spec = optional[f.Key]
		}
		if spec == "" {
			if typed {
				d.Findings = append(d.Findings, finding(rel, f.Line, "W202", unknownDetail(f.Key, d.Type)))
			}
			continue
		}
		if spec == "ref" || spec == "ref-list" {
			d.addRefs(f, spec)
			continue
		}
		// A null is E102 when required and fine when optional; an empty
		// string is checked like any value, so `status: ""` is E102 and E103.
		if f.Value == nil {
			continue
		}
		if !CheckSpec(spec, f.Value) {
			d.Findings = append(d.Findings, finding(rel, f.Line, "E103", invalidDetail(f.Key, spec)))
		}
	}
	return d
}

// splitRef is Split as it was: it builds the frontmatter line by line.
// It separates frontmatter from the body. A leading BOM is dropped. The
// frontmatter is the text between a first line of `---` and the next line of
// `---`; ok is false when the text has none. unclosed is true when a first
// `---` line is never closed and the lines after it start like frontmatter
// (`key:`): the reference reads such a file as all body; here it is E001, so
// the writer learns why every field is missing. A note that merely opens
// with a `---` rule is still just body.
func splitRef(text string) (fm string, body string, unclosed, ok bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	first, rest, found := cutLine(text)
	if !found || strings.TrimRight(first, " \t") != "---" {
		return "", text, false, false
	}
	var lines []string
	for {
		l, r, more := cutLine(rest)
		if strings.TrimRight(l, " \t") == "---" && (more || r == "") {
			if len(lines) == 0 {
				// `---\n---` has an empty frontmatter; the pattern needs
				// at least the newline before the closing fence.
				return "", text, false, false
			}
			return strings.Join(lines, "\n"), r, false, true
		}
		if !more {
			return "", text, startsLikeFrontmatter(append(lines, l)), false
		}
		lines = append(lines, strings.TrimSuffix(l, "\r"))
		rest = r
	}
}

// refConfigs are the policies FuzzAnalyzeAgrees analyses under: the
// untyped default, and one whose types and base overlap in every way a
// field's spec can be looked up (required in both, optional in the type
// and required in the base, optional in both, derived, refs).
func refConfigs() []*policy.Config {
	typed := policy.DefaultConfig()
	typed.AllowUntyped = false
	typed.Derive = []string{"id", "title", "created", "slug"}
	typed.Required = map[string]string{"project": "slug", "status": "string", "empty": ""}
	typed.Optional = map[string]string{"tags": "list", "owner": "string", "url": "url", "n": "number", "rel": "string"}
	typed.FolderMap = map[string]string{"notes": "note", "tasks": "task", "./deep/x": "note"}
	typed.Types = map[string]*policy.TypeDef{
		"note": {Name: "note", Required: map[string]string{"title": "string", "status": "enum:a|b"},
			Optional: map[string]string{"rel": "ref", "tags": "string-list", "due": "date", "project": "any"}},
		"task": {Name: "task", Required: map[string]string{"owner": "ref", "empty": "bool"},
			Optional: map[string]string{"status": "string", "links": "ref-list", "at": "datetime", "owner": "string"}},
	}
	return []*policy.Config{policy.DefaultConfig(), typed}
}

// FuzzAnalyzeAgrees holds Analyze to analyzeRef, the code before the
// spec lookups and the Split that copies no line: the same document,
// field for field, for any text, path and policy.
func FuzzAnalyzeAgrees(f *testing.F) {
	for _, s := range []string{"", "# T\n\nbody", "---\nproject: bench\nstatus: active\n---\n# A\n",
		"---\r\nstatus: a\r\ntitle: x\r\n---\r\nbody", "---\na: 1\r\r\nb: 2\n---\n", "---\nstatus: b\nrel: other-note\nlinks: [a, b, C]\n---\n",
		"---\nowner: [x]\nempty:\nn: 1.5\nurl: http://x\n---\n# H\n", "---\nid: a\ntitle: A\ncreated: 1970-01-01\nslug: a\n---\n# A\n",
		"---\n---\nbody", "---\n\n---\n", "---\nstatus: x", "---\nkey: v\n--- \t\nrest", "\ufeff---\ntags: [a, 1]\n---\n", "---\na: |\n  x\n---\n",
		"---\nproject: bench\nstatus: active\nmodule_area: badolen\nrelated_changes: [adapter-tool-03118, befe-mate-05742]\ntags: [dingo, task]\n---\n# Bogitin decision note 19430\n\nignore buli client .\n"} {
		for rel := range uint8(6) {
			f.Add(s, rel, rel%2 == 0)
		}
	}
	rels := []string{"notes/a.md", "tasks/t.md", "x.md", "notes/readme.md", "deep/x/y.MD", "tasks/sub/tasks.markdown"}
	cfgs := refConfigs()
	f.Fuzz(func(t *testing.T, text string, rel uint8, typed bool) {
		cfg := cfgs[0]
		if typed {
			cfg = cfgs[1]
		}
		p := rels[int(rel)%len(rels)]
		got := Analyze(cfg, p, "root", text, 1_700_000_000_000_000_000, 1_600_000_000_000_000_000)
		want := analyzeRef(cfg, p, "root", text, 1_700_000_000_000_000_000, 1_600_000_000_000_000_000)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %q (typed %v):\n got %#v\nwant %#v", p, text, typed, got, want)
		}
		fm, body, unclosed, ok := Split(text)
		rfm, rbody, runclosed, rok := splitRef(text)
		if fm != rfm || body != rbody || unclosed != runclosed || ok != rok {
			t.Fatalf("Split(%q) = %q %q %v %v, the reference %q %q %v %v", text, fm, body, unclosed, ok, rfm, rbody, runclosed, rok)
		}
	})
}
