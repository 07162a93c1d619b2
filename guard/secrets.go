package guard

import (
	"encoding/binary"
	"math/bits"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/vivary-dev/vivary-go/guard/internal/rulekit"
)

// engine holds the gitleaks rules and the keyword automata that decide
// which of them a piece of text must be matched against.
type engine struct {
	rules []*rule
	word  *automaton // keywords of in-word rules and the vendor prefixes
	tmpl  *automaton // keywords of assignment-template rules
	// split: the word automaton's keywords of three bytes or more, which
	// the second view's line join looks for at a line's end (two-byte
	// ones, "sk", "ey", are in too many words to join lines for).
	split *automaton
	curls []*rule
	key   *rule
	// gate is the shortest word the word gate reports; minOp the shortest
	// secret an assignment-template rule can take.
	gate, minOp int
	// prefixes start the keys of the few in-word rules whose match can be
	// shorter than the gate (short Slack tokens); they are looked for in
	// the text in any case, from each of their first bytes (leads) in
	// lower and upper case.
	prefixes []string
	leads    []byte
}

func (e *engine) prefixAt(t string, i int) bool {
	for _, p := range e.prefixes {
		if i+len(p) <= len(t) && strings.EqualFold(t[i:i+len(p)], p) {
			return true
		}
	}
	return false
}

var screen = sync.OnceValue(func() *engine {
	e := &engine{gate: rulekit.WordGate, minOp: 1 << 30}
	if len(gitleaksRules)+len(vendorPrefixes) > len(ruleSet{})*64 {
		panic("guard: more gitleaks rules and prefixes than a rule set holds")
	}
	for i := range gitleaksRules {
		r := newRule(&gitleaksRules[i])
		e.rules = append(e.rules, r)
		switch r.shape {
		case inWord:
			if r.minWord < e.gate {
				for _, k := range r.keys {
					if p := k[:min(3, len(k))]; !slices.Contains(e.prefixes, p) {
						e.prefixes = append(e.prefixes, p)
					}
				}
			}
		case assigned:
			e.minOp = min(e.minOp, r.minWord)
		case curlFlag:
			e.curls = append(e.curls, r)
		case framed:
			e.key = r
		}
	}
	for _, p := range e.prefixes {
		for _, c := range []byte{strings.ToLower(p[:1])[0], strings.ToUpper(p[:1])[0]} {
			if !slices.Contains(e.leads, c) {
				e.leads = append(e.leads, c)
			}
		}
	}
	words := ruleKeywords(e.rules, func(r *rule) bool { return r.shape == inWord || r.alsoWord })
	for i, p := range vendorPrefixes {
		words = append(words, keyword{strings.ToLower(p), uint16(len(e.rules) + i)})
	}
	e.word = newAutomaton(words)
	var long []keyword
	for _, k := range words {
		if len(k.s) >= 3 {
			long = append(long, k)
		}
	}
	e.split = newAutomaton(long)
	e.tmpl = newAutomaton(ruleKeywords(e.rules, func(r *rule) bool { return r.shape == assigned }))
	return e
})

// lookBack is how far before an operator an assignment keyword may stand:
// the template allows 20 characters of name, 3 of quotes and spaces and a
// ":::=" after the keyword (TestRuleShapes holds every key to it).
const lookBack = 72

// finds reports whether t (security text) holds a secret by a gitleaks
// rule or the core assignment rule. It looks only where a rule can match:
// in-word rules in words at least as long as their shortest match,
// template rules after an operator followed by a long enough value, the
// curl rules after a -H or -u flag, the key block after "-----". Every
// scan visits each byte a bounded number of times, so a note costs time
// linear in its length whatever it holds (TestScreenLinear).
func (e *engine) finds(t string) bool {
	found := false
	forLongWords(t, e.gate, func(a, b int) bool {
		found = e.wordFinds(t, a, b)
		return found
	})
	if found {
		return true
	}
	for _, c := range e.leads {
		done := 0 // the end of the last word checked: one check a word
		for i := nextByte(t, 0, c); i < len(t); i = nextByte(t, i+1, c) {
			if i < done || !e.prefixAt(t, i) {
				continue
			}
			a, b := i, i
			for a > 0 && t[a-1] > ' ' {
				a--
			}
			for b < len(t) && t[b] > ' ' {
				b++
			}
			done = b
			if e.inWordFinds(t[max(a-1, 0):min(b+1, len(t))]) {
				return true
			}
		}
	}
	if e.opsFind(t) || commandFinds(t) {
		return true
	}
	if i := beginIndex(t); i < len(t) {
		// The key block rule runs once, from the first header on: a run
		// from every "-----BEGIN" would read the rest of the text again
		// for each (a note of such lines made the screen quadratic).
		if e.key.finds(t[i:]) {
			return true
		}
		for ; i < len(t); i = beginIndex2(t, i+5) {
			// The core rule wants the header only.
			if privKey.MatchString(t[i:min(len(t), i+160)]) {
				return true
			}
		}
	}
	return false
}

// beginIndex is the index of the first "-----BEGIN" (any case) in t, or
// len(t).
func beginIndex(t string) int { return beginIndex2(t, 0) }

func beginIndex2(t string, from int) int {
	for i := nextDashes(t, from); i < len(t); i = nextDashes(t, i+5) {
		// A longer run of dashes ("------BEGIN") ends in a fence too: its
		// last five. Looking only after each run's first five missed a
		// header behind six to nine dashes.
		for i+5 < len(t) && t[i+5] == '-' {
			i++
		}
		if i+10 <= len(t) && strings.EqualFold(t[i+5:i+10], "begin") {
			return i
		}
	}
	return len(t)
}

// nextDashes is nextIndex(t, i, "-----"). strings.Index finds "-" and
// compares, and once the "-" that start no fence (front matter, hyphenated
// ids, table rules) are more than about one in eight of the bytes read,
// reads the rest of the text a position at a time; this goes on from the
// end of each run of "-" instead: no position inside a run shorter than
// five starts a fence.
func nextDashes(t string, i int) int {
	for i = nextByte(t, i, '-'); i < len(t); i = nextByte(t, i, '-') {
		j := i + 1
		for j < len(t) && j-i < 5 && t[j] == '-' {
			j++
		}
		if j-i == 5 {
			return i
		}
		i = j
	}
	return len(t)
}

// wordFinds checks the word t[a:b], and the word it makes with its
// neighbour across a single line break, against the in-word rules.
func (e *engine) wordFinds(t string, a, b int) bool {
	if e.inWordFinds(t[max(a-1, 0):min(b+1, len(t))]) {
		return true
	}
	for _, xy := range joined(t, a, b) {
		// Scanned in two pieces; glued only when a keyword is in them.
		var set ruleSet
		e.word.scan(xy[1], e.word.scan(xy[0], 0, &set), &set)
		if !set.empty() && e.inWordFinds(" "+xy[0]+xy[1]+" ") {
			return true
		}
	}
	if w := t[a:b]; strings.Contains(w, `\n`) || strings.Contains(w, `\r`) {
		// A key split by an escaped line break ("AKIA…\n…" in a quoted
		// YAML or JSON value) decodes to a key split over lines.
		if d := escapedBreaks.Replace(w); e.inWordFinds(" " + d + " ") {
			return true
		}
	}
	if w := t[a:b]; strings.IndexByte(w, '%') >= 0 {
		if d, err := url.PathUnescape(w); err == nil && d != w && e.inWordFinds(" "+d+" ") {
			return true
		}
	}
	return false
}

var escapedBreaks = strings.NewReplacer(`\r\n`, "", `\n`, "", `\r`, "")

// inWordFinds matches the in-word rules whose keyword occurs in w
// against it.
func (e *engine) inWordFinds(w string) bool {
	var set ruleSet
	e.word.scan(w, 0, &set)
	if set.empty() {
		return false
	}
	for i, r := range e.rules {
		if set.has(i) && (r.minWord <= len(w) || r.alsoWord) && r.finds(w) {
			return true
		}
	}
	for i, p := range vendorPrefixes {
		if set.has(len(e.rules)+i) && prefixedKey(w, p) {
			return true
		}
	}
	return false
}

// joined is the word t[a:b] glued to the word on the other side of each
// line break that touches it, as pairs in text order.
func joined(t string, a, b int) [][2]string {
	var out [][2]string
	if b+1 < len(t) && t[b] == '\n' && !isSpaceByte(t[b+1]) {
		end := b + 1
		for end < len(t) && !isSpaceByte(t[end]) {
			end++
		}
		out = append(out, [2]string{t[a:b], t[b+1 : end]})
	}
	if a >= 2 && t[a-1] == '\n' && !isSpaceByte(t[a-2]) {
		start := a - 1
		for start > 0 && !isSpaceByte(t[start-1]) {
			start--
		}
		out = append(out, [2]string{t[start : a-1], t[a:b]})
	}
	return out
}

func nextIndex(t string, i int, sub string) int {
	if j := strings.Index(t[i:], sub); j >= 0 {
		return i + j
	}
	return len(t)
}

// forLongWords calls fn with the bounds of every word (a maximal run of
// bytes above the space) of at least n bytes, until fn returns true. It
// reads eight bytes at a time: a word of n >= 11 bytes either covers one
// such eight whole, or ends at least n-7 bytes into one after starting at
// least n-7 bytes before its end. Prose has a space in nearly every eight,
// so most cost a few instructions.
func forLongWords(t string, n int, fn func(a, b int) bool) {
	if n < 11 {
		slowLongWords(t, 0, n, fn)
		return
	}
	k := n - 7 // each side of a word across two eights
	top := uint64(highs) << (8 * (8 - min(k, 8)))
	low := uint64(highs) >> (8 * (8 - min(k, 8)))
	b := bytesOf(t)
	i, last := 0, 0
	for ; i+8 <= len(b); i += 8 {
		for k > 7 && i+16 <= len(b) && nonSep(binary.LittleEndian.Uint64(b[i:])) != highs &&
			nonSep(binary.LittleEndian.Uint64(b[i+8:])) != highs {
			// Only a whole eight can start a report here: two at a time.
			i += 16
		}
		if i+8 > len(b) {
			break
		}
		w := nonSep(binary.LittleEndian.Uint64(b[i:]))
		at := -1
		switch {
		case w == highs && i >= 8 && i+16 <= len(b) && !longRun(b, i, n):
			// A word of 8 to n-1 bytes: prose has many, and reading each
			// byte of each to learn its length was the gate's main cost.
			continue
		case w == highs:
			at = i
		case k <= 7 && w&top == top && i+16 <= len(b) && nonSep(binary.LittleEndian.Uint64(b[i+8:]))&low == low:
			at = i + 7
		default:
			continue
		}
		start, end := at, at+1
		for start > 0 && b[start-1] > ' ' {
			start--
		}
		for end < len(b) && b[end] > ' ' {
			end++
		}
		if end-start >= n && fn(start, end) {
			return
		}
		last = end
		// Go on from the eight that holds the space after the word.
		i = end&^7 - 8
	}
	// The last bytes: from the start of the word they are in, unless
	// that word was reported.
	i = max(i, last)
	for i > last && i < len(b) && b[i] > ' ' && b[i-1] > ' ' {
		i--
	}
	slowLongWords(t, i, n, fn)
}

// longRun reports whether the run of bytes above the space that covers
// the eight at b[i:] may be n bytes or more: it is when either
// neighbouring eight is covered too, or when what it takes of them (read
// from their marks, not byte by byte) makes n.
func longRun(b []byte, i, n int) bool {
	prev := nonSep(binary.LittleEndian.Uint64(b[i-8:]))
	next := nonSep(binary.LittleEndian.Uint64(b[i+8:]))
	if prev == highs || next == highs {
		return true
	}
	// The marks of prev that end it, and of next that start it, in bytes.
	before := bits.LeadingZeros64(^prev&highs) / 8
	after := bits.TrailingZeros64(^next&highs) / 8
	return before+8+after >= n
}

// nonSep marks (0x80) each of eight bytes above the space: (c&0x7f)+0x5f
// carries into the high bit for 0x21..0x7f and never into the next byte;
// bytes from 0x80 have it already.
func nonSep(w uint64) uint64 { return ((w & (ones * 0x7f)) + ones*0x5f | w) & highs }

func slowLongWords(t string, i, n int, fn func(a, b int) bool) {
	for i < len(t) {
		for i < len(t) && t[i] <= ' ' {
			i++
		}
		a := i
		for i < len(t) && t[i] > ' ' {
			i++
		}
		if i-a >= n && fn(a, i) {
			return
		}
	}
}
