package graph

import (
	"strconv"
	"strings"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
)

// Finding is one validation result.
type Finding struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Level   string `json:"level"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Messages are the reference's fixed text per code. A finding's message
// starts with it and, where it can, says which field and what to write:
// "required field missing: status".
var Messages = map[string]string{
	"E001": "invalid frontmatter",
	"E101": "required field missing",
	"E102": "required field empty",
	"E103": "field value invalid",
	"W201": "untyped document",
	"W202": "unknown field",
	"W210": "redundant derived field",
	"W220": "unresolved reference",
	"W221": "ambiguous reference",
}

// maxMessageChars is the check result schema's bound on a message.
const maxMessageChars = 256

// finding builds one finding. detail is appended to the code's message
// only when the result passes the screen every output passes (printable, no
// credential, no machine path); a field name or value from the document
// never makes the finding, or the result it is in, unshowable.
func finding(path string, line int, code, detail string) Finding {
	level := "warning"
	if code[0] == 'E' || code == "W201" {
		level = "error"
	}
	msg, ok := Messages[code]
	if !ok {
		msg = "document validation finding"
	}
	if detail != "" {
		full := TrimText(msg+": "+detail, maxMessageChars)
		if guard.OutputSafe(full, maxMessageChars) {
			msg = full
		}
	}
	if line < 0 {
		line = 0
	}
	return Finding{Path: path, Line: line, Level: level, Code: code, Message: msg}
}

// fieldName is key when it can be shown, else "".
func fieldName(key string) string {
	if guard.OutputSafe(key, limits.MaxFieldChars) {
		return key
	}
	return ""
}

// specHint says what a value of spec must be, after "KEY must be".
func specHint(spec string) string {
	if opts, ok := strings.CutPrefix(spec, "enum:"); ok {
		return "one of " + strings.Join(strings.Split(opts, "|"), ", ")
	}
	switch spec {
	case "string":
		return "text, not a list or mapping"
	case "date":
		return "a calendar date, YYYY-MM-DD"
	case "datetime":
		return "a date and time, YYYY-MM-DDTHH:MM[:SS][.fraction][Z|+HH:MM]"
	case "slug":
		return "a lower-case slug (a-z, 0-9, '.', '_', '-')"
	case "ref":
		return "one document id (a lower-case slug)"
	case "ref-list":
		return "a list of document ids, like [id-one, id-two]"
	case "url":
		return "an http:// or https:// URL without spaces"
	case "list":
		return "a list, like [a, b]"
	case "string-list":
		return "a list of text items, like [a, b]"
	case "bool":
		return "true or false"
	case "number":
		return "a number"
	}
	return "valid for its type '" + spec + "'"
}

// invalidDetail is the E103 detail: "status must be one of a, b".
func invalidDetail(key, spec string) string {
	if k := fieldName(key); k != "" {
		return k + " must be " + specHint(spec)
	}
	return ""
}

func redundantDetail(key string) string {
	if k := fieldName(key); k != "" {
		return k + " equals the value Vivary derives; remove it"
	}
	return ""
}

func unknownDetail(key, typ string) string {
	if k := fieldName(key); k != "" {
		return k + " is not a field of the type " + typ + "; remove it or add it to the type's policy"
	}
	return ""
}

func unresolvedDetail(e Edge) string {
	if k := fieldName(e.Field); k != "" {
		return k + " names " + e.To + ", which no document has as its id"
	}
	return ""
}

func ambiguousDetail(e Edge, n int) string {
	if k := fieldName(e.Field); k != "" {
		return k + " names " + e.To + ", which " + strconv.Itoa(n) + " documents have as their id; rename all but one of them"
	}
	return ""
}
