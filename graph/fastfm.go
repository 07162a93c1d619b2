package graph

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/guard"
)

// parseSimple parses the common frontmatter shape (one `key: scalar` or
// `key: [a, b]` per line, plain words only) without building a YAML node
// tree. Separators and padding may be any Python whitespace, as pySpaces
// allows. It reports ok=false for anything else, and the caller falls back
// to the YAML parser; FuzzFastPathAgrees proves both give the same fields.
func parseSimple(fm string) (*Frontmatter, bool) {
	n := strings.Count(fm, "\n") + 1
	out := &Frontmatter{byKey: make(map[string]int, n), Fields: make([]Field, 0, n)}
	i := -1
	for line := range strings.SplitSeq(fm, "\n") {
		i++
		colon := strings.IndexByte(line, ':')
		if colon <= 0 {
			return nil, false
		}
		key := line[:colon]
		start, _ := spaceRun(line, colon+1)
		if start == colon+1 || !simpleKey(key) {
			return nil, false
		}
		if _, dup := out.byKey[key]; dup {
			return nil, false
		}
		val := guard.TrimRightSpace(line[start:])
		var v any
		if strings.HasPrefix(val, "[") && strings.HasSuffix(val, "]") {
			inner := val[1 : len(val)-1]
			var items []any
			if guard.TrimSpace(inner) == "" {
				items = []any{}
			} else {
				items = make([]any, 0, strings.Count(inner, ",")+1)
				for it := range strings.SplitSeq(inner, ",") {
					s, ok := fastScalar(guard.TrimSpace(it))
					if !ok {
						return nil, false
					}
					items = append(items, s)
				}
			}
			v = items
		} else {
			s, ok := fastScalar(val)
			if !ok {
				return nil, false
			}
			v = s
		}
		out.byKey[key] = len(out.Fields)
		out.Fields = append(out.Fields, Field{Key: key, Value: v, Line: i + 2})
	}
	return out, true
}

// fastScalar is a quoted or a plain simple scalar.
func fastScalar(s string) (any, bool) {
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		return quotedScalar(s)
	}
	return simpleScalar(s)
}

// quotedScalar accepts a whole `"…"` or `'…'` value without escapes (no
// backslash in double quotes, no quote inside either): YAML reads it as
// exactly the text between the quotes, always a string, even "true" or
// "42". Titles are written this way (`title: "Privacy: what is never
// read"`). Only printable characters YAML allows are taken, and no Python
// whitespace beyond the space, which the slow path would rewrite first.
func quotedScalar(s string) (any, bool) {
	if len(s) < 2 || s[len(s)-1] != s[0] || !utf8.ValidString(s) {
		return nil, false
	}
	inner := s[1 : len(s)-1]
	for _, r := range inner {
		switch {
		case r == rune(s[0]) || r == '\\':
			return nil, false
		case r >= 0x20 && r <= 0x7e:
		case r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd && r != 0xfeff, r >= 0x10000 && r <= 0x10ffff:
			if guard.IsSpace(r) {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return inner, true
}

func simpleKey(k string) bool {
	if len(k) > 128 { // YAML caps implicit keys at 1024; real keys are short
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || (i > 0 && (c >= '0' && c <= '9' || c == '-'))) {
			return false
		}
	}
	return k != ""
}

// simpleScalar accepts words of letters, digits, space, ".", "_", "/" and
// "-" that YAML reads as a plain string, a date (kept as a string) or a
// plain decimal integer.
func simpleScalar(s string) (any, bool) {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || strings.Contains(s, "  ") {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ' || c == '.' || c == '_' || c == '/' || c == '-') {
			return nil, false
		}
	}
	first := s[0]
	switch {
	case first >= '0' && first <= '9':
		if isDate(s) {
			return s, true
		}
		if first != '0' && !strings.ContainsAny(s, " ._/-") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n, true
			}
		}
		return nil, false
	case first >= 'a' && first <= 'z' || first >= 'A' && first <= 'Z':
		switch strings.ToLower(s) {
		case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
			return nil, false
		}
		return s, true
	}
	return nil, false
}
