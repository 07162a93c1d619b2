package graph

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// FuzzFastPathAgrees checks the fast path against the slow one: yaml.v3
// after pySpaces has applied the reference's whitespace rule.
func FuzzFastPathAgrees(f *testing.F) {
	for _, s := range []string{"a: b", "project: x\nstatus: done\ndate: 2026-11-20", "k: [a, b-c, d/e]", "n: 42",
		"n: 042", "b: true", "b: True", "x: yes", "k: []", "k: [ ]", "a: b c", "t: 2026-13-45", "v: 1.5", "v: 1_000", "a-b: c", "a: -1",
		"a:\u00a0b", "a:\u3000[x,\u00a0y\u2009]", "s: done\u3000", "k:\x1fv\x1c", "k:\rv", "k:\x85v", "k: [\u00a0]", "t:\u00a0a b",
		`title: "Privacy: what is never read"`, `t: 'it''s'`, `t: "a\"b"`, `t: "a\\b"`, `t: ""`, `t: ''`, `t: "true"`, `t: "42"`,
		`t: "  pad "`, `t: "# not a comment"`, `k: ["a, b", 'c']`, `k: ["x", y]`, "t: \"tab\there\"", "t: \"\u00a0\"", "t: \"caf\u00e9\"",
		`t: "a" # c`, `t: "a"b"`, `t: "\ufeff"`, `t: '`, `t: "`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fast, ok := parseSimple(s)
		if !ok {
			return
		}
		slow, err := parseFrontmatter(s, false)
		if err != nil {
			t.Fatalf("fast path accepted what YAML refuses: %q (%v)", s, err)
		}
		if !reflect.DeepEqual(fast.Fields, slow.Fields) {
			t.Fatalf("%q:\nfast %#v\nyaml %#v", s, fast.Fields, slow.Fields)
		}
	})
}

// FuzzPythonSpaceRule checks the rule itself: it never moves a line, it
// leaves text without Python-only whitespace alone, and swapping the space
// after each simple key's colon for an NBSP or an ideographic space (or
// padding a value with them) parses to the same fields, as the reference's
// strip() would.
func FuzzPythonSpaceRule(f *testing.F) {
	for _, s := range []string{"a: b", "project: x\nstatus: done", "k: [a, b]", "t: 'q'", "n: 42\nb: true", "x:\n  - a\n  - b"} {
		f.Add(s)
	}
	keyed := regexp.MustCompile(`(?m)^([a-z_]+): (\S)`)
	f.Fuzz(func(t *testing.T, s string) {
		out := pySpaces(s)
		if strings.Count(out, "\n") != strings.Count(s, "\n") {
			t.Fatalf("pySpaces moved lines: %q -> %q", s, out)
		}
		if !hasExoticSpace(s) && out != s {
			t.Fatalf("pySpaces changed plain text: %q -> %q", s, out)
		}
		want, err := parseFrontmatter(s, false)
		if err != nil || hasExoticSpace(s) || strings.ContainsAny(s, "\t\r\"'#") {
			return
		}
		for _, sp := range []string{"\u00a0", "\u3000 ", " \u2009"} {
			swapped := keyed.ReplaceAllString(s, "$1:"+sp+"$2")
			got, err := parseFrontmatter(swapped, false)
			if err != nil {
				t.Fatalf("%q parses, %q does not: %v", s, swapped, err)
			}
			if !reflect.DeepEqual(got.Fields, want.Fields) {
				t.Fatalf("%q:\n got %#v\nwant %#v", swapped, got.Fields, want.Fields)
			}
		}
	})
}

// The fast path takes the quoted titles real vaults are full of, so they
// skip the YAML parser (FuzzFastPathAgrees proves the answer is the same).
func TestFastPathTakesQuotedScalars(t *testing.T) {
	for _, s := range []string{`title: "Privacy: what is never read"`, `t: 'a # b'`, `t: "true"`, `k: ["a", 'b c']`, "t: \"caf\u00e9\""} {
		if _, ok := parseSimple(s); !ok {
			t.Errorf("fast path refused %q", s)
		}
	}
	for _, s := range []string{`t: "a\"b"`, `t: 'it''s'`, `t: "a" # c`, "t: \"\u00a0\""} {
		if _, ok := parseSimple(s); ok {
			t.Errorf("fast path took %q, which YAML reads otherwise or needs pySpaces", s)
		}
	}
}
