package workspace

import (
	"regexp"
	"strconv"
)

// TempSuffix ends the name of every temp file package write makes; the
// generated .gitignore block ignores it, so a leftover is never read or
// committed.
const TempSuffix = ".vivary-tmp"

// TempName is the name of a temp file of the writer tag (a lower-case
// word: init, adopt, record), n telling it from its siblings:
// .<tag>-<n>.vivary-tmp.
func TempName(tag string, n uint32) string {
	return "." + tag + "-" + strconv.FormatUint(uint64(n), 10) + TempSuffix
}

var tempRe = regexp.MustCompile(`^\.([a-z]+)-[0-9]+\.vivary-tmp$`)

// TempTag reports whether name is a TempName, and whose: Doctor, which
// only reads, names a killed write's leftovers by it, and the writers find
// their own to remove.
func TempTag(name string) (string, bool) {
	m := tempRe.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	return m[1], true
}
