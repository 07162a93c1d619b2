package search

import (
	"strings"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/guard"
)

type match struct {
	start, end int
	term       int
}

// snippet is the passage of d (whose text is text) that best shows why it matched, at most
// limit characters with "..." where it was cut: the window of the body
// (whitespace collapsed) holding the rarest query terms, most often, cut
// at word boundaries; when only the frontmatter matched, its matching
// fields as "key: value"; else the start of the body. The first candidate
// safe to show wins; none when no safe text exists.
func snippet(d *graph.Document, text string, qt map[string]int, idfs []float64, limit int, safe func(string) bool) (string, bool) {
	if limit <= 0 {
		return "", false
	}
	if safe == nil {
		safe = func(string) bool { return true }
	}
	body := guard.CollapseSpace(withoutTitle(body(text), d.Title))
	var tries []string
	if s, ok := bestWindow(body, qt, idfs, limit); ok {
		tries = append(tries, s)
	}
	var matched, all []string
	for _, f := range d.FM.Fields {
		kv := f.Key + ": " + guard.CollapseSpace(graph.Stringify(f.Value))
		all = append(all, kv)
		if hasAny(graph.Stringify(f.Value), qt) {
			matched = append(matched, kv)
		}
	}
	if len(matched) > 0 {
		tries = append(tries, cut(strings.Join(matched, "; "), 0, limit))
	}
	if body != "" {
		tries = append(tries, cut(body, 0, limit))
	}
	if len(all) > 0 {
		tries = append(tries, cut(strings.Join(all, "; "), 0, limit))
	}
	if t := guard.TrimSpace(d.Title); t != "" {
		tries = append(tries, cut(t, 0, limit))
	}
	for _, s := range tries {
		if s != "" && safe(s) {
			return s, true
		}
	}
	return "", false
}

// bestWindow finds the span of query-term matches that fits in limit
// characters and holds the most weight (each distinct term its idf, each
// repeat a little), then widens it to limit around its middle.
func bestWindow(text string, qt map[string]int, idfs []float64, limit int) (string, bool) {
	var ms []match
	scan(text, func(t token) {
		if i, ok := qt[string(t.term)]; ok {
			ms = append(ms, match{t.start, t.end, i})
		}
	})
	if len(ms) == 0 {
		return "", false
	}
	// Whole compounds come after their parts; keep start order.
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].start < ms[j-1].start; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
	counts := make([]int, len(idfs))
	bestScore, bestL, bestR := -1.0, 0, 0
	score := 0.0
	l := 0
	for r := range ms {
		if counts[ms[r].term] == 0 {
			score += idfs[ms[r].term] + 1
		} else {
			score += 0.1
		}
		counts[ms[r].term]++
		for utf8.RuneCountInString(text[ms[l].start:ms[r].end]) > limit && l < r {
			counts[ms[l].term]--
			if counts[ms[l].term] == 0 {
				score -= idfs[ms[l].term] + 1
			} else {
				score -= 0.1
			}
			l++
		}
		if score > bestScore+1e-9 {
			bestScore, bestL, bestR = score, ms[l].start, ms[r].end
		}
	}
	span := utf8.RuneCountInString(text[bestL:bestR])
	// Show a little before the first match, the rest after it.
	lead := min((limit-span)/3, utf8.RuneCountInString(text[:bestL]))
	left := bestL
	for i := 0; i < lead && left > 0; i++ {
		_, n := utf8.DecodeLastRuneInString(text[:left])
		left -= n
	}
	return cut(text, left, limit), true
}

// cut is at most limit characters of text from byte left, moved to word
// boundaries, with "..." on a side that was cut.
func cut(text string, left, limit int) string {
	if left > 0 {
		// Start at a word: after the space at or before left, unless the
		// word is too long to matter.
		if i := strings.LastIndexByte(text[:left+1], ' '); i >= 0 && left-i < 20 {
			left = i + 1
		}
	}
	right, runes := left, 0
	for right < len(text) && runes < limit {
		_, n := utf8.DecodeRuneInString(text[right:])
		right += n
		runes++
	}
	if right < len(text) {
		if i := strings.LastIndexByte(text[left:right], ' '); i > 0 && right-(left+i) < 20 {
			right = left + i
		}
	}
	out := guard.TrimSpace(text[left:right])
	if out == "" {
		return ""
	}
	if left > 0 {
		out = "..." + out
	}
	if right < len(text) {
		out += "..."
	}
	return out
}

// withoutTitle drops a leading "# " heading that is the title: the hit
// shows the title already.
func withoutTitle(body, title string) string {
	rest := strings.TrimLeft(body, " \t\r\n")
	line, after, _ := strings.Cut(rest, "\n")
	if strings.HasPrefix(line, "#") && title != "" && guard.TrimSpace(strings.TrimLeft(line, "#")) == title {
		return after
	}
	return body
}
