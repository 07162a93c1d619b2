package graph_test

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/scaffold"
)

func thinConfig(t *testing.T) *policy.Config {
	t.Helper()
	var toml string
	for _, f := range scaffold.Files("p", "coding") {
		if f.Path == policy.ThinConfigPath {
			toml = f.Content
		}
	}
	raw, err := policy.ParseTOML([]byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := policy.Compose([]map[string]any{raw}, true)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestTypeFor(t *testing.T) {
	cfg := thinConfig(t)
	for path, want := range map[string]string{
		".vivary/context.md":                  "project",
		".vivary/records/changes/x.md":        "change",
		".vivary/records/decisions/y.md":      "decision",
		"decisions/2026/nested/z.md":          "decision",
		".vivary/knowledge/fact.md":           "vivary_fact",
		"projects/p.md":                       "project",
		"modules/m.md":                        "module",
		"AGENTS.md":                           "",
		"STATE.md":                            "",
		"notes/x.md":                          "",
		".vivary/records/verification/v.md":   "verification",
		".vivary/records/gates/g.md":          "gate",
		"changes/deep/decisions/inner.md":     "decision",
		"decisions/deep/changes/inner.md":     "change",
		".vivary/records/unknown/thing.md":    "project",
		"some/projects/under/notes/readme.md": "project",
	} {
		if got := graph.TypeFor(cfg, path); got != want {
			t.Errorf("TypeFor(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestDerive(t *testing.T) {
	for _, c := range []struct{ path, root, id string }{
		{".vivary/context.md", "ws", "context"},
		{"AGENTS.md", "ws", "agents"},
		{"STATE.md", "ws", "state"},
		{"changes/greenfield-mcp-proof.md", "ws", "greenfield-mcp-proof"},
		{"README.md", "My Workspace", "my-workspace"},
		{"guides/index.md", "ws", "guides"},
		{"guides/_INDEX.markdown", "ws", "guides"},
		{"Guides/guides.md", "ws", "guides"},
		{"x/Hello World!!.md", "ws", "hello-world"},
		{"x/---.md", "ws", "untitled"},
		{"x/Ünïcode.md", "ws", "n-code"},
	} {
		if got := graph.DeriveID(c.path, c.root); got != c.id {
			t.Errorf("DeriveID(%q) = %q, want %q", c.path, got, c.id)
		}
	}
	for _, c := range []struct{ body, id, want string }{
		{"# Hello  \nmore", "x", "Hello"},
		{"text\n#   Second\n# Third", "x", "Second"},
		{"no heading", "Greenfield MCP proof", "Greenfield MCP proof"},
		{"#nospace", "a-b", "a-b"},
		{"```sh\n# Login\n```\n# Headless Sync", "x", "Headless Sync"},
		{"~~~~\n# In code\n~~~\n# still code\n~~~~\n\n# Out", "x", "Out"},
		{"```\n# never closed", "Obsidian for iOS", "Obsidian for iOS"},
		{"# " + strings.Repeat("a", 600), "x", strings.Repeat("a", 509) + "..."},
	} {
		if got := graph.DeriveTitle(c.body, c.id); got != c.want {
			t.Errorf("DeriveTitle(%q) = %q, want %q", c.body, got, c.want)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in, fm string
		ok     bool
	}{
		{"---\na: 1\n---\nbody", "a: 1", true},
		{"\ufeff---\r\na: 1\r\n---\r\nbody", "a: 1", true},
		{"---  \na: 1\n---\t\n", "a: 1", true},
		{"---\na: 1\n---", "a: 1", true},
		{"---\n---\n", "", false},
		{"---\n\n---\n", "", true},
		{"---\na: 1\n", "", false},
		{"x\n---\na: 1\n---\n", "", false},
		{"---\na: 1\n---x\n---\n", "a: 1\n---x", true},
	} {
		fm, _, _, ok := graph.Split(c.in)
		if ok != c.ok || fm != c.fm {
			t.Errorf("Split(%q) = %q,%v; want %q,%v", c.in, fm, ok, c.fm, c.ok)
		}
	}
}

func analyze(t *testing.T, path, text string) []string {
	t.Helper()
	d := graph.Analyze(thinConfig(t), path, "ws", text, 1e18, 1e18)
	var out []string
	for _, f := range d.Findings {
		out = append(out, fmt.Sprintf("%s@%d", f.Code, f.Line))
	}
	return out
}

func TestFindings(t *testing.T) {
	for _, c := range []struct {
		name, path, text string
		want             string
	}{
		{"clean change", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\n---\n# C\n", "[]"},
		{"missing required", "changes/c.md", "# Missing typed frontmatter\n", "[E101@1 E101@1 E101@1]"},
		{"empty required", "changes/c.md", "---\nproject: ''\nstatus: done\nslice: s\n---\n", "[E102@2]"},
		{"null required", "changes/c.md", "---\nproject:\nstatus: done\nslice: s\n---\n", "[E102@2]"},
		{"bad enum", "changes/c.md", "---\nproject: p\nstatus: nope\nslice: s\n---\n", "[E103@3]"},
		{"unknown field", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\nmood: ok\n---\n", "[W202@5]"},
		{"untyped ignores unknown", "notes/n.md", "---\nmood: ok\n---\n", "[]"},
		{"redundant derived", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\nid: c\n---\n", "[W210@5]"},
		{"bad date", "decisions/d.md", "---\nproject: p\nstatus: accepted\ndate: 2026-13-01\n---\n", "[E103@4]"},
		{"good date", "decisions/d.md", "---\nproject: p\nstatus: accepted\ndate: 2026-08-10\n---\n", "[]"},
		{"invalid yaml", "changes/c.md", "---\nproject: [unclosed\n---\n", "[E001@2]"},
		{"not a mapping", "changes/c.md", "---\n- a\n- b\n---\n", "[E001@2]"},
		{"duplicate key", "notes/n.md", "---\na: 1\na: 2\n---\n", "[E001@3]"},
		{"tab indent", "notes/n.md", "---\na:\n\t- x\n---\n", "[E001@3]"},
		{"mapping in list", "notes/n.md", "---\na:\n  - b: 1\n---\n", "[E001@3]"},
		{"bad ref", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: [Not A Slug]\n---\n", "[E103@5]"},
		{"ref not a list", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: x\n---\n", "[E103@5]"},
		{"tags list", "notes/n.md", "---\ntags: [a, b]\n---\n", "[]"},
		{"tags scalar", "notes/n.md", "---\ntags: a\n---\n", "[E103@2]"},
		// The reference's string accepts any scalar YAML reads: numbers and
		// booleans the writer meant as text; string-list accepts scalar items.
		{"number and bool as text", "changes/c.md", "---\nproject: 2026\nstatus: done\nslice: 42\nbranch: true\n---\n", "[]"},
		{"float and exponent as text", "changes/c.md", "---\nproject: 1.5\nstatus: done\nslice: 1e3\n---\n", "[]"},
		{"scalar tag items", "notes/n.md", "---\ntags: [2026, x, true, 1.5]\n---\n", "[]"},
		{"null tag item", "notes/n.md", "---\ntags: [a, ~]\n---\n", "[]"},
		{"list as text", "changes/c.md", "---\nproject: p\nstatus: done\nslice: [a]\n---\n", "[E103@4]"},
		{"mapping as text", "changes/c.md", "---\nproject: p\nstatus: done\nslice: {a: b}\n---\n", "[E103@4]"},
		{"enum is not a list", "changes/c.md", "---\nproject: p\nstatus: [done]\nslice: s\n---\n", "[E103@3]"},
		// An empty required enum or date is empty and invalid; empty text
		// is only empty; a null is only empty.
		{"empty required enum", "changes/c.md", "---\nproject: p\nstatus: \"\"\nslice: s\n---\n", "[E102@3 E103@3]"},
		{"empty required date", "decisions/d.md", "---\nproject: p\nstatus: accepted\ndate: ''\n---\n", "[E102@4 E103@4]"},
		{"null required enum", "changes/c.md", "---\nproject: p\nstatus:\nslice: s\n---\n", "[E102@3]"},
		// Datetimes need a time; a fraction may follow the minutes; the
		// calendar check stays (a declared improvement).
		{"datetime without time", "gates/g.md", "---\nproject: p\nstatus: open\ngate: g\napproved_at: 2026-11-20\n---\n", "[E103@5]"},
		{"datetime fraction after minutes", "gates/g.md", "---\nproject: p\nstatus: open\ngate: g\napproved_at: 2026-11-20T10:00.5Z\n---\n", "[]"},
		{"datetime full", "gates/g.md", "---\nproject: p\nstatus: open\ngate: g\napproved_at: 2026-11-20T10:00:00.123456789123+02:00\n---\n", "[]"},
		{"datetime with a space", "gates/g.md", "---\nproject: p\nstatus: open\ngate: g\napproved_at: 2026-11-20 10:00\n---\n", "[]"},
		{"datetime off the calendar", "gates/g.md", "---\nproject: p\nstatus: open\ngate: g\napproved_at: 2026-02-30T10:00Z\n---\n", "[E103@5]"},
		{"date off the calendar", "decisions/d.md", "---\nproject: p\nstatus: accepted\ndate: 2026-02-30\n---\n", "[E103@4]"},
		// Python whitespace separates and pads like YAML's.
		{"nbsp after colon", "changes/c.md", "---\nproject:\u00a0p\nstatus:\u3000done\u3000\nslice: s\u00a0# note\n---\n", "[]"},
		{"nbsp in a list", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: [\u00a0m,\u2009n\u00a0]\n---\n", "[]"},
		{"separator before a colon", "changes/c.md", "---\nproject\u00a0: p\nstatus: done\nslice:\x1fs\x1f\n---\n", "[]"},
		{"nbsp inside a value is kept", "changes/c.md", "---\nproject: p\nstatus: do\u00a0ne\nslice: s\n---\n", "[E103@3]"},
		{"nbsp inside quotes is kept", "changes/c.md", "---\nproject: p\nstatus: 'done\u00a0'\nslice: s\n---\n", "[E103@3]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fmt.Sprint(analyze(t, c.path, c.text)); got != c.want {
				t.Errorf("findings %s, want %s", got, c.want)
			}
		})
	}
}

func TestEdgesAndGraph(t *testing.T) {
	cfg := thinConfig(t)
	a := graph.Analyze(cfg, "changes/a.md", "ws", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: [m, missing]\n---\n", 1, 1)
	m := graph.Analyze(cfg, "modules/m.md", "ws", "---\nproject: p\nstatus: active\nmodule_area: x\n---\n", 1, 1)
	g := graph.Build([]*graph.Document{a, m})
	if fmt.Sprint(g.Edges()) != "[{a related_modules m false} {a related_modules missing true}]" {
		t.Fatalf("edges %v", g.Edges())
	}
	w := a.UnresolvedFindings(map[string]bool{"a": true, "m": true})
	if len(w) != 1 || w[0].Code != "W220" || w[0].Line != 5 {
		t.Fatalf("W220 %v", w)
	}
}

// Messages keep the reference's text for the code and say which field and
// what to write; a field name that is not safe to show is left out.
func TestFindingMessages(t *testing.T) {
	cfg := thinConfig(t)
	for _, c := range []struct{ name, path, text, want string }{
		{"missing fields", "changes/c.md", "---\nproject: p\n---\n",
			"E101@1 required field missing: slice|E101@1 required field missing: status"},
		{"enum values", "changes/c.md", "---\nproject: p\nstatus: nope\nslice: s\n---\n",
			"E103@3 field value invalid: status must be one of planned, active, done, blocked, deferred"},
		{"empty", "changes/c.md", "---\nproject: ''\nstatus: done\nslice: s\n---\n", "E102@2 required field empty: project"},
		{"date", "decisions/d.md", "---\nproject: p\nstatus: accepted\ndate: soon\n---\n",
			"E103@4 field value invalid: date must be a calendar date, YYYY-MM-DD"},
		{"ref-list", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: [Not A Slug]\n---\n",
			"E103@5 field value invalid: related_modules must be a list of document ids, like [id-one, id-two]"},
		{"unknown", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\nmood: ok\n---\n",
			"W202@5 unknown field: mood is not a field of the type change; remove it or add it to the type's policy"},
		{"derived", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\nid: c\n---\n",
			"W210@5 redundant derived field: id equals the value Vivary derives; remove it"},
		{"unclosed", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\n# Heading\n",
			"E001@1 invalid frontmatter: no closing '---' line; end the frontmatter with a line of three dashes"},
		{"unclosed without newline", "notes/n.md", "---\na: 1", "E001@1 invalid frontmatter: no closing '---' line; end the frontmatter with a line of three dashes"},
		{"unclosed after a blank line", "notes/n.md", "---\n\ntags: [a]\n", "E001@1 invalid frontmatter: no closing '---' line; end the frontmatter with a line of three dashes"},
		{"a note that opens with a rule", "notes/n.md", "---\n\nSome text: with a colon later\n", ""},
		{"a rule then a heading", "changes/c.md", "---\n# Heading\n",
			"E101@1 required field missing: project|E101@1 required field missing: slice|E101@1 required field missing: status"},
		{"tab", "notes/n.md", "---\na:\n\t- x\n---\n", "E001@3 invalid frontmatter: a tab in the indentation; indent with spaces"},
		{"duplicate", "notes/n.md", "---\na: 1\na: 2\n---\n", "E001@3 invalid frontmatter: a key appears twice; keep one"},
		{"syntax", "notes/n.md", "---\na: [x\n---\n", "E001@2 invalid frontmatter: not valid YAML; write one 'key: value' per line"},
		{"list", "notes/n.md", "---\n- a\n---\n", "E001@2 invalid frontmatter: it must be 'key: value' lines, not a list or a single value"},
		{"nested", "notes/n.md", "---\na:\n  - b: 1\n---\n", "E001@3 invalid frontmatter: a list of mappings, a nested list or a YAML anchor; use plain values"},
		{"unsafe key", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\n\"a\\tb\": x\n\"api_key=sk12345678\": y\n---\n",
			"W202@5 unknown field|W202@6 unknown field"},
	} {
		d := graph.Analyze(cfg, c.path, "ws", c.text, 1, 1)
		var got []string
		for _, f := range d.Findings {
			got = append(got, fmt.Sprintf("%s@%d %s", f.Code, f.Line, f.Message))
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, strings.Join(got, "|"), c.want)
		}
	}
	a := graph.Analyze(cfg, "changes/a.md", "ws", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: [gone]\n---\n", 1, 1)
	if w := a.UnresolvedFindings(map[string]bool{"a": true}); len(w) != 1 ||
		w[0].Message != "unresolved reference: related_modules names gone, which no document has as its id" {
		t.Errorf("W220 %+v", w)
	}
	// An enum too long to list still fits the schema's 256 characters.
	long := &policy.Config{FolderMap: map[string]string{"x": "x"}, Types: map[string]*policy.TypeDef{
		"x": {Required: map[string]string{"s": "enum:" + strings.Repeat("value|", 80) + "v"}}}}
	d := graph.Analyze(long, "x/a.md", "ws", "---\ns: nope\n---\n", 1, 1)
	if len(d.Findings) != 1 || len([]rune(d.Findings[0].Message)) > 256 || !strings.HasSuffix(d.Findings[0].Message, "...") {
		t.Errorf("long enum: %+v", d.Findings)
	}
}

// A scalar in a ref-list or a list in a ref keeps its edges, as in the
// reference, with one E103 on the field.
func TestRefShapeKeepsEdges(t *testing.T) {
	cfg := thinConfig(t)
	for _, c := range []struct{ name, path, text, edges, findings string }{
		{"scalar in ref-list", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: m\n---\n",
			"[{related_modules m}]", "[E103@5]"},
		{"list in ref", "decisions/d.md", "---\nproject: p\nstatus: accepted\ndate: 2026-08-10\nsupersedes: [a, b]\n---\n",
			"[{supersedes a} {supersedes b}]", "[E103@5]"},
		{"one E103 for a bad target", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: [/abs, ok]\n---\n",
			"[{related_modules ok}]", "[E103@5]"},
		{"null item", "changes/c.md", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: [m, ~]\n---\n",
			"[{related_modules m}]", "[E103@5]"},
	} {
		d := graph.Analyze(cfg, c.path, "ws", c.text, 1, 1)
		var edges, findings []string
		for _, e := range d.Edges {
			edges = append(edges, "{"+e.Field+" "+e.To+"}")
		}
		for _, f := range d.Findings {
			findings = append(findings, fmt.Sprintf("%s@%d", f.Code, f.Line))
		}
		if got := fmt.Sprint(edges); got != c.edges {
			t.Errorf("%s: edges %s, want %s", c.name, got, c.edges)
		}
		if got := fmt.Sprint(findings); got != c.findings {
			t.Errorf("%s: findings %s, want %s", c.name, got, c.findings)
		}
	}
}

// Values render in search text as the reference's str() does.
func TestStringify(t *testing.T) {
	for _, c := range []struct {
		fm, want string
	}{
		{"b: true", "True"},
		{"b: false", "False"},
		{"n: 42", "42"},
		{"n: 2026", "2026"},
		{"f: 1.5", "1.5"},
		{"f: 1e16", "1e+16"},
		{"f: 123456789.0", "123456789.0"},
		{"f: 0.00001", "1e-05"},
		{"f: 3.0", "3.0"},
		{"x: ~", ""},
		{"l: [2026, x]", "2026, x"},
		{"l: [a, ~]", "a, None"},
		{"l: [a, true, 1.5]", "a, True, 1.5"},
		{"m: {b: 1, a: [x, \"it's\"]}", "a: ['x', \"it's\"] b: 1"},
	} {
		fm, err := graph.ParseFrontmatter(c.fm)
		if err != nil {
			t.Fatalf("%q: %v", c.fm, err)
		}
		if got := graph.Stringify(fm.Fields[0].Value); got != c.want {
			t.Errorf("Stringify(%q) = %q, want %q", c.fm, got, c.want)
		}
	}
}

// Titles use Python's whitespace: "#" then any \s run (newlines too), and
// strip() of the rest. Expected values are the reference's
// re.search(r"^#\s+(.+)$", body, re.M).group(1).strip().
func TestTitleWhitespace(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"#\u00a0Title", "Title"},
		{"# Title\x1f", "Title"},
		{"#\u3000 T \u3000", "T"},
		{"#\n\nText", "Text"},
		{"#  \nX", "X"},
		{"#\x1c\nX", "X"},
		{"text\n#\u2028Y\n# Z", "Y"},
		{"#\tA\r\n", "A"},
		{"#\u200bB\n# C", "C"},
		{"# \x1f", ""},
		{"# \u00a0", ""},
	} {
		if got := graph.DeriveTitle(c.body, "x-y"); got != c.want {
			t.Errorf("DeriveTitle(%q) = %q, want %q", c.body, got, c.want)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"---\na: 1\n---\nbody", "---\r\n---\r\n", "\ufeff---\n", "---\n\n---", "", "---"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fm, body, unclosed, ok := graph.Split(s)
		if unclosed && (ok || !strings.HasPrefix(strings.TrimPrefix(s, "\ufeff"), "---")) {
			t.Fatalf("unclosed %v with ok %v for %q", unclosed, ok, s)
		}
		if !ok {
			if fm != "" {
				t.Fatal("frontmatter without ok")
			}
			return
		}
		if len(fm)+len(body) > len(s) {
			t.Fatal("split invented bytes")
		}
		if !strings.HasSuffix(s, body) {
			t.Fatal("body is not a suffix of the text")
		}
		_, _ = graph.ParseFrontmatter(fm)
	})
}

// FuzzParseFrontmatter: a parse is a mapping in document order (unique
// keys, each found by Get, lines inside the text and never going back,
// values only of the documented kinds); a refusal is an ErrFrontmatter that
// names a line of the file.
func FuzzParseFrontmatter(f *testing.F) {
	for _, s := range []string{"a: 1", "a: [x, y]", "a: |\n  x\n  y", "a:\n  - x", "{}", "- x", "a: 2026-01-01", "a: &x 1\nb: *x",
		"{a: 1, b: 2}", "a: 1\na: 2", "a:\n\tb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		last := strings.Count(s, "\n") + 2 // the file line of the text's last line (line 1 is the opening ---)
		fm, err := graph.ParseFrontmatter(s)
		if err != nil {
			var fe *graph.ErrFrontmatter
			if !errors.As(err, &fe) || fe.Why == "" || fe.Line < 2 {
				t.Fatalf("%q refused with %#v", s, err)
			}
			return
		}
		seen := map[string]bool{}
		prev := 2
		for _, fl := range fm.Fields {
			if seen[fl.Key] {
				t.Fatalf("%q: key %q twice", s, fl.Key)
			}
			seen[fl.Key] = true
			if v, ok := fm.Get(fl.Key); !ok || !reflect.DeepEqual(v, fl.Value) {
				t.Fatalf("%q: Get(%q) = %v, %v; the field holds %v", s, fl.Key, v, ok, fl.Value)
			}
			if fl.Line < prev || fl.Line > last {
				t.Fatalf("%q: key %q on line %d (previous %d, last %d)", s, fl.Key, fl.Line, prev, last)
			}
			prev = fl.Line
			if !documentedKind(fl.Value) {
				t.Fatalf("%q: key %q holds a %T", s, fl.Key, fl.Value)
			}
			_ = graph.Stringify(fl.Value)
		}
	})
}

// documentedKind: nil, string, bool, int64, float64, []any, map[string]any,
// all the way down.
func documentedKind(v any) bool {
	switch v := v.(type) {
	case nil, string, bool, int64, float64:
		return true
	case []any:
		for _, e := range v {
			if !documentedKind(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range v {
			if !documentedKind(e) {
				return false
			}
		}
		return true
	}
	return false
}

func FuzzSlugify(f *testing.F) {
	for _, s := range []string{"Hello World", "a-!b", "--x--", "Ünï çode!!", "", "README", "a\u00a0b"} {
		f.Add(s)
	}
	re := regexp.MustCompile(`[^a-z0-9._-]+`)
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.Trim(re.ReplaceAllString(strings.ToLower(s), "-"), "-")
		if want == "" {
			want = "untitled"
		}
		if got := graph.Slugify(s); got != want {
			t.Fatalf("Slugify(%q) = %q, want %q", s, got, want)
		}
	})
}

// A graph with documents replaced in place has the nodes and edges of one
// built from the new documents: a changed type or edge shows, and a
// changed id builds afresh.
func TestReplaceIsBuild(t *testing.T) {
	cfg := thinConfig(t)
	doc := func(path, text string) *graph.Document { return graph.Analyze(cfg, path, "ws", text, 1, 1) }
	a := doc("changes/a.md", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: [m]\n---\n")
	m := doc("modules/m.md", "---\nproject: p\nstatus: active\nmodule_area: x\n---\n")
	m2 := doc("other/m.md", "---\nproject: p\n---\n") // the same id, later in path order
	docs := []*graph.Document{a, m, m2}
	g := graph.Build(docs)
	for _, c := range []struct {
		name string
		at   int
		by   *graph.Document
	}{
		{"owner edited", 1, doc("modules/m.md", "---\nproject: q\nstatus: active\nmodule_area: y\n---\n")},
		{"owner retyped", 1, doc("modules/m.md", "---\ntype: note\n---\n")},
		{"second of an id", 2, doc("other/m.md", "---\nproject: r\n---\n")},
		{"edges changed", 0, doc("changes/a.md", "---\nproject: p\nstatus: done\nslice: s\nrelated_modules: [m, gone]\n---\n")},
		{"id changed", 0, doc("changes/a.md", "---\nid: b\nproject: p\nstatus: done\nslice: s\n---\n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			next := slices.Clone(docs)
			next[c.at] = c.by
			got, want := g.Replace(next, []*graph.Document{docs[c.at]}, []*graph.Document{c.by}), graph.Build(next)
			if fmt.Sprint(nodes(got)) != fmt.Sprint(nodes(want)) || fmt.Sprint(got.Edges()) != fmt.Sprint(want.Edges()) {
				t.Fatalf("replaced %v %v\nbuilt %v %v", nodes(got), got.Edges(), nodes(want), want.Edges())
			}
		})
	}
}

func nodes(g *graph.Graph) []string {
	var out []string
	for id, ok := range g.IDs {
		out = append(out, fmt.Sprintf("%s=%v", id, ok))
	}
	slices.Sort(out)
	return out
}
