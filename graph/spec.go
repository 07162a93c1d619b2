package graph

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vivary-dev/vivary-go/guard"
)

var (
	urlRe = regexp.MustCompile(`^https?://` + guard.NotSpaceClass + `+$`)
	// datetimeRe is the reference's shape: a date, then a time of at least
	// hours and minutes, optional seconds, an optional fraction (also right
	// after the minutes), and an optional zone.
	datetimeRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?$`)
)

// isDate reports the shape ^\d{4}-\d{2}-\d{2}$ (\d being ASCII digits),
// by hand: frontmatter values that start with a digit are tried against
// it, and the expression cost more than the rest of a note's frontmatter.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i != 4 && i != 7 && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// isSlug reports an id's shape: ^[a-z0-9][a-z0-9._-]*$, by hand, as every
// ref target of every note is matched against it.
func isSlug(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || i > 0 && (c == '.' || c == '_' || c == '-')) {
			return false
		}
	}
	return s != ""
}

// validDate is the reference's YYYY-MM-DD plus a calendar check: the
// reference accepts 2026-02-30, which no reader of the record would mean
// (declared in the README's differences).
func validDate(s string) bool {
	if !isDate(s) {
		return false
	}
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// scalar reports a value that is neither a list nor a mapping: what the
// reference's string type accepts (YAML reads `slice: 42` as a number and
// `branch: true` as a boolean, and the writer meant text).
func scalar(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return false
	}
	return true
}

// CheckSpec reports whether v satisfies the field spec.
func CheckSpec(spec string, v any) bool {
	switch spec {
	case "any":
		return true
	case "string":
		return scalar(v)
	case "date":
		s, ok := v.(string)
		return ok && validDate(s)
	case "datetime":
		s, ok := v.(string)
		return ok && datetimeRe.MatchString(s) && validDate(s[:10])
	case "slug", "ref":
		s, ok := v.(string)
		return ok && isSlug(s)
	case "url":
		s, ok := v.(string)
		return ok && urlRe.MatchString(s)
	case "list":
		_, ok := v.([]any)
		return ok
	case "string-list", "ref-list":
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range l {
			if spec == "string-list" && !scalar(e) {
				return false
			}
			if s, ok := e.(string); spec == "ref-list" && (!ok || !isSlug(s)) {
				return false
			}
		}
		return true
	case "bool":
		_, ok := v.(bool)
		return ok
	case "number":
		switch v.(type) {
		case int64, float64:
			return true
		}
		return false
	}
	if opts, ok := strings.CutPrefix(spec, "enum:"); ok {
		s := pyStr(v)
		for _, o := range strings.Split(opts, "|") {
			if o == s {
				return true
			}
		}
	}
	return false
}

// Stringify renders a frontmatter value as the reference's search text
// does: null as "", a list as its items' str() joined by ", ", a mapping as
// sorted "key: str(value)" pairs joined by spaces, anything else as str().
func Stringify(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = pyStr(e)
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		keys := sortedKeys(t)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + pyStr(t[k])
		}
		return strings.Join(parts, " ")
	}
	return pyStr(v)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pyStr is Python's str() of a parsed value: None, True/False, repr of
// floats, and lists and mappings in their repr form.
func pyStr(v any) string {
	switch t := v.(type) {
	case nil:
		return "None"
	case string:
		return t
	case bool:
		if t {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return pyFloat(t)
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := sortedKeys(t)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyRepr(k) + ": " + pyRepr(t[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}

// pyRepr is Python's repr(): strings quoted, everything else as pyStr.
func pyRepr(v any) string {
	s, ok := v.(string)
	if !ok {
		return pyStr(v)
	}
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case guard.PrintableRune(r):
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x` + strconv.FormatInt(int64(r)|0x100, 16)[1:])
		case r < 0x10000:
			b.WriteString(`\u` + strconv.FormatInt(int64(r)|0x10000, 16)[1:])
		default:
			b.WriteString(`\U` + strconv.FormatInt(int64(r)|0x100000000, 16)[1:])
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyFloat is Python's repr of a float: the shortest digits that round-trip,
// in fixed notation for exponents -4..15 (with ".0" when whole) and in
// scientific notation otherwise ("1e+16", "1.5e-05").
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
