// Package guard owns the text checks every public output passes through:
// printable text, credential-looking values, absolute machine paths, and the
// string order (UTF-16 code units) the contract sorts by. It holds no state
// and reads nothing.
package guard

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Printable reports whether every rune of s is printable in the sense of
// Python's str.isprintable: letters, marks, numbers, punctuation, symbols and
// the ASCII space. Tabs, newlines, other spaces, format and unassigned runes
// are not. Invalid UTF-8 is not printable.
func Printable(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return false
			}
		}
		if r == ' ' {
			continue
		}
		if !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) {
			return false
		}
	}
	return true
}

// Len is the length of s in code points (Python len).
func Len(s string) int { return utf8.RuneCountInString(s) }

// SafeText reports a non-empty, printable string of at most max code points.
func SafeText(s string, max int) bool {
	return s != "" && Len(s) <= max && utf8.ValidString(s) && Printable(s)
}

// Less orders strings by their UTF-16 code units, the order the contract
// sorts paths and ids by. It differs from byte order only above U+FFFF
// against U+E000..U+FFFF.
func Less(a, b string) bool { return Compare(a, b) < 0 }

// Compare is the three-way form of Less.
func Compare(a, b string) int {
	if isASCII(a) && isASCII(b) {
		return strings.Compare(a, b)
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			if ua[i] < ub[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(ua) < len(ub):
		return -1
	case len(ua) > len(ub):
		return 1
	}
	return 0
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// securityText is NFKC then NFKD with every C* and M* rune dropped, so
// full-width and zero-width obfuscations of a credential still match.
func securityText(s string) string {
	d := norm.NFKD.String(norm.NFKC.String(s))
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if unicode.IsSpace(r) {
			// Line breaks and tabs separate words; dropping them (as other
			// control runes are) would glue "x\nsecret = v" into one word.
			b.WriteByte(' ')
			continue
		}
		if unicode.In(r, unicode.C, unicode.M) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Word-boundary classes: Python's \w is Unicode-aware.
const wordClass = `\p{L}\p{N}_`

var (
	credURL  = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s/@:]+:[^\s/@]+@`)
	scpCred  = regexp.MustCompile(`[^\s/@:]+:[^\s/@]+@[^\s/]+:`)
	assignRe = regexp.MustCompile(`(?i)(?:^|[^` + wordClass + `])(api[_-]?key|access[_-]?key|auth|authorization|credential|password|passwd|private[_ -]?key|secret|token)\s*[=:]\s*["']?([^\s"',;}\]]+)`)
	tokenRe  = regexp.MustCompile(`(?:^|[^` + wordClass + `])(?:AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{20,}|xox[baprs]-[A-Za-z0-9-]{10,})(?:[^` + wordClass + `]|$)`)
	privKey  = regexp.MustCompile(`-----BEGIN (?:[A-Z0-9 ]+ )?PRIVATE KEY-----`)
	uriRe    = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.\\-]*://(?:\\[[^\\]\\s]*\\]|[^\\s/\"'<>()\\[\\]`]+)(?::[0-9]{1,5})?(?:/[^\\s\"'<>()\\[\\]`]*)?")
	anyURI   = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://`)
)

// safeConfigValues are the type-spec words a policy file legitimately puts
// after "token:" and the like; the producers (not the MCP firewall) allow them.
var safeConfigValues = map[string]bool{
	"any": true, "boolean": true, "bool": true, "date": true, "datetime": true, "float": true,
	"integer": true, "number": true, "null": true, "ref": true, "ref-list": true, "slug": true,
	"string": true, "url": true,
}

// Mode selects which credential rules apply.
type Mode int

const (
	// Producer is the core rule set: spec words after an assignment are allowed.
	Producer Mode = iota
	// Firewall is the adapter's stricter set: no exemption, plus SCP-style userinfo.
	Firewall
)

// Credential reports whether s looks like it holds a credential.
func Credential(s string, m Mode) bool {
	t := securityText(s)
	if credURL.MatchString(t) || tokenRe.MatchString(t) || privKey.MatchString(t) {
		return true
	}
	if m == Firewall && scpCred.MatchString(t) {
		return true
	}
	for _, sub := range assignRe.FindAllStringSubmatch(t, -1) {
		if m == Firewall || !safeConfigValues[strings.ToLower(sub[2])] {
			return true
		}
	}
	return false
}

// MachinePath reports whether s names an absolute machine path (POSIX, drive
// or UNC) once every URI has been removed from it.
func MachinePath(s string) bool {
	t := uriRe.ReplaceAllString(securityText(s), "")
	prevOK := true // at the start of the text
	rs := []rune(t)
	for i, r := range rs {
		if prevOK && startsMachinePath(rs[i:]) {
			return true
		}
		prevOK = !(r == '/' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.N, r))
	}
	return false
}

func startsMachinePath(rs []rune) bool {
	if len(rs) >= 3 && isASCIILetter(rs[0]) && rs[1] == ':' && (rs[2] == '\\' || rs[2] == '/') {
		return true
	}
	if len(rs) >= 2 && rs[0] == '\\' && rs[1] == '\\' {
		j := 2
		n := 0
		for j < len(rs) && !unicode.IsSpace(rs[j]) && rs[j] != '\\' && rs[j] != '/' {
			j++
			n++
		}
		if n > 0 && j < len(rs) && (rs[j] == '\\' || rs[j] == '/') {
			j++
			if j < len(rs) && !unicode.IsSpace(rs[j]) && rs[j] != '\\' && rs[j] != '/' {
				return true
			}
		}
	}
	if len(rs) >= 2 && rs[0] == '/' && rs[1] != '/' && !unicode.IsSpace(rs[1]) && !strings.ContainsRune("\"'<>()[]{}", rs[1]) {
		return true
	}
	return false
}

func isASCIILetter(r rune) bool { return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') }

// AnyURI reports whether s holds any scheme:// form (used by the capsule
// projection, which refuses every URI).
func AnyURI(s string) bool { return anyURI.MatchString(securityText(s)) }

// ContainsRoot reports whether s contains the workspace root, in its slash or
// backslash form, after NFKC on both sides.
func ContainsRoot(s, root string) bool {
	if root == "" {
		return false
	}
	v := norm.NFKC.String(s)
	r := norm.NFKC.String(root)
	return strings.Contains(v, r) || strings.Contains(v, strings.ReplaceAll(r, "/", `\`))
}

// OutputSafe is SafeText plus no credential and no machine path.
func OutputSafe(s string, max int, m Mode) bool {
	return SafeText(s, max) && !Credential(s, m) && !MachinePath(s)
}

// SafeRelPath reports a safe workspace-relative path: safe text, no
// backslash, not absolute, no drive, no empty, "." or ".." segment.
func SafeRelPath(p string, max int) bool {
	if !SafeText(p, max) || strings.ContainsRune(p, '\\') || strings.HasPrefix(p, "/") || hasDrive(p) {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

func hasDrive(p string) bool { return len(p) >= 2 && isASCIILetter(rune(p[0])) && p[1] == ':' }

// Absolute reports a value that starts like an absolute path (/ or a drive).
func Absolute(p string) bool {
	return strings.HasPrefix(p, "/") || (len(p) >= 3 && hasDrive(p) && (p[2] == '/' || p[2] == '\\'))
}
