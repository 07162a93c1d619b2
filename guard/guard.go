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

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Printable reports whether s is legible text: every rune printable in the
// sense of Python's str.isprintable (letters, marks, numbers, punctuation,
// symbols and the ASCII space), or an invisible character its script
// spells with (a joiner between Persian letters, a zero-width space
// between Khmer words, a joiner inside an emoji, the tags of a flag).
// Tabs, newlines, other spaces, controls, direction controls, private-use
// and unassigned runes, and invisible characters anywhere else are not
// (see TextFault, which says which rule a string breaks). Invalid UTF-8 is
// not printable.
func Printable(s string) bool {
	_, _, ok := firstFault(s)
	return ok
}

// PrintableRune is Python's str.isprintable for one rune, with no context:
// a letter, mark, number, punctuation, symbol or the ASCII space. Python's
// repr writes every other rune as an escape.
func PrintableRune(r rune) bool {
	return r == ' ' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
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

func isControlByte(c byte) bool { return (c < 0x20 && !isSpaceByte(c)) || c == 0x7f }

// IsASCII reports whether s is pure ASCII.
func IsASCII(s string) bool { return isASCII(s) }

// securityText is NFKC then NFKD with every C* and M* rune dropped, so
// full-width and zero-width obfuscations of a credential still match.
// Whitespace becomes a plain space. ASCII text takes a fast path: both
// normal forms are the identity on it.
func securityText(s string) string {
	ascii, control := asciiControl(s)
	return securityTextOf(s, ascii, control)
}

// securityTextOf is securityText for a caller that has asciiControl(s)
// already: Credential reads it once for the text and its second view.
func securityTextOf(s string, ascii, control bool) string {
	if ascii {
		// Detectors treat every ASCII space character alike, so only other
		// control bytes need removing; most text has none and is not copied.
		if !control {
			return s
		}
		b := make([]byte, 0, len(s))
		for i := 0; i < len(s); i++ {
			if c := s[i]; !isControlByte(c) {
				b = append(b, c)
			}
		}
		return string(b)
	}
	return securityRunes(s)
}

// securityNorm is securityText of a text outside ASCII through the whole
// text's NFKD: what securityRunes falls back to where its per-rune reading
// is not known to be exact (invalid UTF-8).
func securityNorm(s string) string {
	// NFKD of s is NFKD of its NFKC (compatibility-equivalent strings have
	// one NFKD); only where a run of more than 30 marks makes the norm
	// package insert a grapheme joiner may the marks differ, and marks are
	// dropped below. FuzzSecurityTextAgrees holds it to both forms.
	d := norm.NFKD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for i := 0; i < len(d); {
		if c := d[i]; c < utf8.RuneSelf {
			// What the rune path below does with ASCII, without its
			// table lookups: most of a text in another script is ASCII.
			i++
			switch {
			case c == '\n':
				b.WriteByte('\n')
			case isSpaceByte(c):
				b.WriteByte(' ')
			case !isControlByte(c):
				b.WriteByte(c)
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(d[i:])
		i += n
		writeSecurityRune(&b, r)
	}
	return b.String()
}

// writeSecurityRune writes what security text keeps of one rune of an
// NFKD form.
func writeSecurityRune(b *strings.Builder, r rune) {
	switch {
	case unicode.IsSpace(r):
		// Line breaks and tabs separate words; dropping them (as other
		// control runes are) would glue "x\nsecret = v" into one word.
		// A line break stays one: the screen looks across it.
		if r == '\n' {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	case unicode.In(r, unicode.C, unicode.M):
	case r > unicode.MaxASCII && IsDash(r):
		// "Smart punctuation" writes ‐ ‑ – − for "-": a key's prefix and
		// a key block's fence read the same with them.
		b.WriteByte('-')
	default:
		b.WriteRune(r)
	}
}

// IsDash reports a rune that reads as "-": Unicode's dash punctuation
// (hyphens, en and em dashes, the figure dash, the horizontal bar, the
// small and full-width hyphen-minus, the wave dashes), the minus signs
// (U+2212, the heavy and modifier minus), the hyphen bullet and the
// horizontal box-drawing lines a fence can be drawn with.
func IsDash(r rune) bool {
	switch {
	case r == '-':
		return true
	case r < 0x80:
		return false
	case unicode.Is(unicode.Pd, r):
		return true
	}
	switch r {
	case 0x2212, 0x2796, 0x02D7, 0x2043, 0x207B, 0x208B, 0x23AF, 0x23E4, 0x2E3A, 0x2E3B, 0x10EAD,
		0x2500, 0x2501, 0x2504, 0x2505, 0x2508, 0x2509, 0x254C, 0x254D, 0x2574, 0x2576, 0x2578, 0x257A, 0x257C, 0x257E,
		0xFE58:
		return true
	}
	return false
}

var (
	uriRe  = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.\\-]*://(?:\\[[^\\]\\s]*\\]|[^\\s/\"'<>()\\[\\]`]+)(?::[0-9]{1,5})?(?:/[^\\s\"'<>()\\[\\]`]*)?")
	anyURI = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://`)
)

// nextByte is the index of the first c in t at or after i, or len(t).
func nextByte(t string, i int, c byte) int {
	if j := strings.IndexByte(t[i:], c); j >= 0 {
		return i + j
	}
	return len(t)
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// IsWordRune is Python's \w for one rune: a letter, a number or "_".
func IsWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.N, r) }

// MachinePath reports whether s names an absolute machine path (POSIX, drive
// or UNC) once every URI has been removed from it.
func MachinePath(s string) bool {
	t := securityText(s)
	if strings.Contains(t, "://") {
		t = uriRe.ReplaceAllString(t, "\x01")
	}
	if !strings.ContainsAny(t, "/\\") {
		return false
	}
	prevOK := true // at the start of the text
	rs := []rune(t)
	for i, r := range rs {
		if prevOK && startsMachinePath(rs[i:]) {
			return true
		}
		// A path starts after a space, an opening mark or an operator, or
		// right after a link's URI and its closing mark; not after a
		// folder name's own last character ("Archive (2023)/n.md",
		// "C++/notes.md" are relative paths).
		prevOK = r == 1 || unicode.IsSpace(r) || strings.ContainsRune(PathLeads, r) ||
			strings.ContainsRune(")]}>\"'`", r) && i > 0 && rs[i-1] == 1
	}
	return false
}

// PathLeads are the marks an absolute path is written after in text ("~"
// keeps a home path, ~/.ssh/…, out of answers as before).
const PathLeads = "([{<\"'`=,;:|>*~"

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
func ContainsRoot(s, root string) bool { return containsRoot(s, root, onWindows) }

// containsRoot is ContainsRoot; on Windows (windows set) the root is also
// looked for in its slash form (C:/Users/…) and without case, as Windows
// names it either way.
func containsRoot(s, root string, windows bool) bool {
	if root == "" {
		return false
	}
	v, r := s, root
	if !isASCII(v) {
		v = norm.NFKC.String(v)
	}
	if !isASCII(r) {
		r = norm.NFKC.String(r)
	}
	if windows {
		v, r = cases.Fold().String(v), cases.Fold().String(r)
	}
	return strings.Contains(v, r) || strings.Contains(v, strings.ReplaceAll(r, "/", `\`)) ||
		windows && strings.Contains(v, strings.ReplaceAll(r, `\`, "/"))
}

// OutputSafe is SafeText plus no credential and no machine path.
func OutputSafe(s string, max int) bool {
	return SafeText(s, max) && !Credential(s) && !MachinePath(s)
}

// SafeRelPath reports a safe workspace-relative path: safe text (legible,
// at most max code points) of a RelPathShape. PathFault says which rule an
// unsafe one breaks.
func SafeRelPath(p string, max int) bool { return PathFault(p, max) == "" }

// RelPathShape reports the shape of a workspace-relative path alone: no
// backslash, not absolute, no drive, no empty, "." or ".." segment, and on
// Windows no segment that WindowsNameFault refuses. The MCP
// adapter checks only this of a check path, so that the text rules are left
// to the producer and its path_refused answer.
func RelPathShape(p string) bool { return shapeOf(p) == shapeOK }

// shape is the rule of RelPathShape a path breaks, or shapeOK.
type shape int

const (
	shapeOK shape = iota
	shapeEmpty
	shapeAbsolute
	shapeDrive
	shapeBackslash
	shapeClimb
	shapeEmptySegment
	shapeWindowsName
)

func shapeOf(p string) shape { return shapeFor(p, onWindows) }

// shapeFor is shapeOf, with the Windows name rule when windows is set.
func shapeFor(p string, windows bool) shape {
	switch {
	case p == "":
		return shapeEmpty
	case strings.HasPrefix(p, "/"):
		return shapeAbsolute
	case hasDrive(p):
		return shapeDrive
	case strings.ContainsRune(p, '\\'):
		return shapeBackslash
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "..":
			return shapeClimb
		case "", ".":
			return shapeEmptySegment
		}
	}
	if windows && windowsNameFault(p) != "" {
		return shapeWindowsName
	}
	return shapeOK
}

// PathShapeProblem says which rule of RelPathShape p breaks, as the end of
// a sentence about it ("is an absolute path; …"), or "" when it keeps them
// all. It never repeats p.
func PathShapeProblem(p string) string {
	return map[shape]string{
		shapeEmpty:        "is empty; give a path relative to the workspace root",
		shapeAbsolute:     "is an absolute path; give it relative to the workspace root",
		shapeDrive:        "starts with a drive letter; give it relative to the workspace root",
		shapeBackslash:    "holds a backslash; separate folders with '/'",
		shapeClimb:        "climbs out with '..'; give a path inside the workspace, relative to its root",
		shapeEmptySegment: "has an empty or '.' part (a doubled or trailing '/', or './'); name each folder once, with no '/' at the end",
		shapeWindowsName:  "has a part Windows reads as something else: " + windowsNameFault(p) + "; give the file's own name",
	}[shapeOf(p)]
}

func hasDrive(p string) bool { return len(p) >= 2 && isASCIILetter(rune(p[0])) && p[1] == ':' }

// Absolute reports a value that starts like an absolute path (/ or a drive).
func Absolute(p string) bool {
	return strings.HasPrefix(p, "/") || (len(p) >= 3 && hasDrive(p) && (p[2] == '/' || p[2] == '\\'))
}
