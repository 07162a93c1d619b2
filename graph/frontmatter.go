// Package graph owns the typed document model: frontmatter, type resolution,
// derived fields, validation findings and ref edges. It works on bytes the
// caller has already admitted and read; it never touches the filesystem.
package graph

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/vivary-dev/vivary-go/guard"
)

// Split separates frontmatter from the body. A leading BOM is dropped. The
// frontmatter is the text between a first line of `---` and the next line of
// `---`; ok is false when the text has none. unclosed is true when a first
// `---` line is never closed and the lines after it start like frontmatter
// (`key:`): the reference reads such a file as all body; here it is E001, so
// the writer learns why every field is missing. A note that merely opens
// with a `---` rule is still just body.
func Split(text string) (fm string, body string, unclosed, ok bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	first, rest, found := cutLine(text)
	if !found || strings.TrimRight(first, " \t") != "---" {
		return "", text, false, false
	}
	// The frontmatter is the lines between the fences joined by "\n", each
	// without a "\r" before its line break: with no "\r" among them, that
	// is the text between the fences as it stands, and no line is copied.
	start := len(text) - len(rest)
	for off := start; ; {
		l, r, more := cutLine(text[off:])
		if strings.TrimRight(l, " \t") == "---" && (more || r == "") {
			if off == start {
				// `---\n---` has an empty frontmatter; the pattern needs
				// at least the newline before the closing fence.
				return "", text, false, false
			}
			if fm := text[start : off-1]; strings.IndexByte(fm, '\r') < 0 {
				return fm, r, false, true
			}
			return splitLines(text, rest)
		}
		if !more {
			return splitLines(text, rest)
		}
		off = len(text) - len(r)
	}
}

// splitLines is Split after the opening fence, rest being the text after
// it, taken line by line: for frontmatter with a "\r" in it, and for text
// whose frontmatter is never closed.
func splitLines(text, rest string) (fm string, body string, unclosed, ok bool) {
	var lines []string
	for {
		l, r, more := cutLine(rest)
		if strings.TrimRight(l, " \t") == "---" && (more || r == "") {
			if len(lines) == 0 {
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

var keyLine = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*[ \t]*:([ \t]|$)`)

// startsLikeFrontmatter reports whether the first non-blank line is a
// `key:` line.
func startsLikeFrontmatter(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return keyLine.MatchString(l)
		}
	}
	return false
}

// cutLine returns the first line (without its \n, and without a \r before
// it) and the rest; found is false when there is no newline.
func cutLine(s string) (line, rest string, found bool) {
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		return s, "", false
	}
	return strings.TrimSuffix(s[:i], "\r"), s[i+1:], true
}

// Field is one frontmatter key with its value and 1-based file line.
type Field struct {
	Key   string
	Value any // nil, string, bool, int64, float64, []any, map[string]any
	Line  int
}

// Frontmatter is the parsed mapping in document order.
type Frontmatter struct {
	Fields []Field
	byKey  map[string]int
}

// Get returns the value of key.
func (f *Frontmatter) Get(key string) (any, bool) {
	if f == nil {
		return nil, false
	}
	i, ok := f.byKey[key]
	if !ok {
		return nil, false
	}
	return f.Fields[i].Value, true
}

// ErrFrontmatter is a frontmatter that is not a valid YAML mapping. Line is
// the file line to report, Why what to fix there (it never quotes the text).
type ErrFrontmatter struct {
	Line int
	Why  string
}

func (e *ErrFrontmatter) Error() string {
	return fmt.Sprintf("invalid frontmatter at line %d: %s", e.Line, e.Why)
}

// Why an E001 was reported.
const (
	whyUnclosed  = "no closing '---' line; end the frontmatter with a line of three dashes"
	whySyntax    = "not valid YAML; write one 'key: value' per line"
	whyTab       = "a tab in the indentation; indent with spaces"
	whyNotMap    = "it must be 'key: value' lines, not a list or a single value"
	whyKey       = "a key must be plain text"
	whyDuplicate = "a key appears twice; keep one"
	whyNested    = "a list of mappings, a nested list or a YAML anchor; use plain values"
)

var yamlLine = regexp.MustCompile(`line (\d+)`)

// ParseFrontmatter parses the YAML frontmatter text. Dates stay strings,
// duplicate keys and mappings inside lists are errors.
func ParseFrontmatter(fm string) (*Frontmatter, error) {
	return parseFrontmatter(fm, true)
}

func parseFrontmatter(fm string, fast bool) (*Frontmatter, error) {
	if guard.TrimSpace(fm) == "" {
		return &Frontmatter{byKey: map[string]int{}}, nil
	}
	if fast {
		if simple, ok := parseSimple(fm); ok {
			return simple, nil
		}
	}
	out := &Frontmatter{byKey: map[string]int{}}
	fm = pySpaces(fm)
	for i, l := range strings.Split(fm, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if strings.HasPrefix(trimmed, "\t") {
			return nil, &ErrFrontmatter{Line: i + 2, Why: whyTab}
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(fm), &doc); err != nil {
		line := 1
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, &ErrFrontmatter{Line: line + 1, Why: whySyntax}
	}
	if len(doc.Content) == 0 {
		return out, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &ErrFrontmatter{Line: 2, Why: whyNotMap}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, &ErrFrontmatter{Line: k.Line + 1, Why: whyKey}
		}
		if _, dup := out.byKey[k.Value]; dup {
			return nil, &ErrFrontmatter{Line: k.Line + 1, Why: whyDuplicate}
		}
		val, err := nodeValue(v, false)
		if err != nil {
			return nil, &ErrFrontmatter{Line: v.Line + 1, Why: whyNested}
		}
		out.byKey[k.Value] = len(out.Fields)
		out.Fields = append(out.Fields, Field{Key: k.Value, Value: val, Line: k.Line + 1})
	}
	return out, nil
}

var errUnsupported = errors.New("unsupported yaml")

func nodeValue(n *yaml.Node, inList bool) (any, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return nil, errUnsupported
	case yaml.ScalarNode:
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return n.Value, nil
		}
		switch n.Tag {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, err
			}
			return b, nil
		case "!!int":
			if i, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
				return i, nil
			}
			return n.Value, nil
		case "!!float":
			if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
				return f, nil
			}
			return n.Value, nil
		}
		return n.Value, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode {
				return nil, errUnsupported
			}
			v, err := nodeValue(c, true)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		if inList {
			return nil, errUnsupported
		}
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, errUnsupported
			}
			if _, dup := m[k.Value]; dup {
				return nil, errUnsupported
			}
			v, err := nodeValue(n.Content[i+1], false)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	}
	return nil, errUnsupported
}
