package guard

// The join of the screen's second view before it told whether a blank
// line met an open word (commit 6e25314), verbatim but for the name.
// refRevealed reads both of its joins, as Credential did then, and agrees
// holds joinSplit to it. Do not edit to match a change; a change of meaning
// is a new reference.

import "strings"

// refJoinSplit glues a line's last word to the first word of the lines after
// it while that word holds a token's keyword: what stands at each break
// (trailing spaces, indentation, quote, list and table marks, and blank
// lines when overBlank) goes.
func refJoinSplit(t string, overBlank bool) string {
	var b strings.Builder
	b.Grow(len(t))
	open := false
	for i, ln := range strings.Split(t, "\n") {
		ln = strings.TrimRight(ln, " \t\r|")
		if open {
			ln = lineLead.ReplaceAllString(ln, "")
			if ln == "" {
				if overBlank {
					continue // a blank line inside a folded scalar
				}
				b.WriteByte('\n') // a paragraph's end ends the word
				open = false
				continue
			}
		} else if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ln)
		last := ln
		if k := strings.LastIndexAny(ln, " \t"); k >= 0 {
			last = ln[k+1:]
		}
		if open && !strings.ContainsAny(ln, " \t") {
			continue // the whole line went on the word: it may go on further
		}
		open = keyStart(last)
	}
	return b.String()
}
