package graph

import (
	"reflect"
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
