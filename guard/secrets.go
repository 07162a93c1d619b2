package guard

import (
	"encoding/binary"
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
	word  *automaton // keywords of in-word rules
	tmpl  *automaton // keywords of assignment-template rules
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
	if len(gitleaksRules) > len(ruleSet{})*64 {
		panic("guard: more gitleaks rules than a rule set holds")
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
	e.word = newAutomaton(e.rules, func(r *rule) bool { return r.shape == inWord || r.alsoWord })
	e.tmpl = newAutomaton(e.rules, func(r *rule) bool { return r.shape == assigned })
	return e
})

// lookBack is how far before an operator an assignment keyword may stand:
// the template allows 20 characters of name, 3 of quotes and spaces and a
// ":::=" after the keyword (TestRuleShapes holds every key to it).
const lookBack = 72

// gitleaks reports whether t (security text) holds a secret by a gitleaks
// rule. It looks only where a rule can match: in-word rules in words at
// least as long as their shortest match, template rules after an
// operator followed by a long enough value, the curl rules after a -H or
// -u flag, the key block after "-----".
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
		for i := nextByte(t, 0, c); i < len(t); i = nextByte(t, i+1, c) {
			if !e.prefixAt(t, i) {
				continue
			}
			a, b := i, i
			for a > 0 && t[a-1] > ' ' {
				a--
			}
			for b < len(t) && t[b] > ' ' {
				b++
			}
			if e.inWordFinds(t[max(a-1, 0):min(b+1, len(t))]) {
				return true
			}
		}
	}
	// "=" and ":" are tracked apart (IndexByte is vectorised, IndexAny a
	// byte loop) and visited in order: the core assignment rule and the
	// template rules both start at them.
	eq, colon := nextByte(t, 0, '='), nextByte(t, 0, ':')
	for {
		op := min(eq, colon)
		if op == len(t) {
			break
		}
		if op == eq {
			eq = nextByte(t, op+1, '=')
		} else {
			colon = nextByte(t, op+1, ':')
		}
		if assignmentAt(t, op) || e.opFinds(t, op) {
			return true
		}
	}
	for _, op := range []byte{',', '>', '|'} {
		for i := nextByte(t, 0, op); i < len(t); i = nextByte(t, i+1, op) {
			if e.opFinds(t, i) {
				return true
			}
		}
	}
	for i := nextIndex(t, 0, "-----"); i < len(t); i = nextIndex(t, i+5, "-----") {
		if i+10 <= len(t) && strings.EqualFold(t[i+5:i+10], "begin") {
			// The core rule wants the header only; gitleaks' the block.
			if privKey.MatchString(t[i:min(len(t), i+160)]) || e.key.finds(t[i:]) {
				return true
			}
		}
	}
	return false
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

// opFinds checks the operator at t[i] against the template rules and the
// curl rules.
func (e *engine) opFinds(t string, i int) bool {
	j := i + 1
	for k := 0; k < 5 && j < len(t) && valueLead[t[j]]; k++ {
		j++
	}
	n := j
	for n < len(t) && !valueEnd[t[n]] {
		n++
	}
	if n-j >= e.minOp {
		from := max(0, i-lookBack)
		var set ruleSet
		w := t[from:min(len(t), n+2)]
		e.tmpl.scan(w, 0, &set)
		if !set.empty() {
			for k, r := range e.rules {
				if set.has(k) && r.minWord <= n-j && r.finds(w) {
					return true
				}
			}
		}
	}
	if t[i] == ':' || t[i] == '=' {
		return e.curlFinds(t, i)
	}
	return false
}

// valueLead are the bytes the template allows between an operator and its
// value; valueEnd the bytes that end a value.
var valueLead, valueEnd = byteSet("`'\" \t\r\n="), byteSet("`'\"; \t\r\n\v\f")

func byteSet(s string) (t [256]bool) {
	for i := 0; i < len(s); i++ {
		t[s[i]] = true
	}
	return t
}

// curlFinds runs the curl rules when the operator at i sits in the value
// of a -H/--header or -u/--user flag and a line among the six up to it
// holds curl.
func (e *engine) curlFinds(t string, i int) bool {
	ls := strings.LastIndexByte(t[:i], '\n') + 1
	line := t[ls:i]
	if !strings.Contains(line, "-H") && !strings.Contains(line, "-u") && !strings.Contains(line, "--header") && !strings.Contains(line, "--user") {
		return false
	}
	from := ls
	for k := 0; k < 6 && from > 0; k++ {
		from = strings.LastIndexByte(t[:from-1], '\n') + 1
	}
	end := nextByte(t, i, '\n')
	w := t[from:end]
	if !strings.Contains(w, "curl") {
		return false
	}
	for _, r := range e.curls {
		if r.finds(w) {
			return true
		}
	}
	return false
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
		w := nonSep(binary.LittleEndian.Uint64(b[i:]))
		at := -1
		switch {
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
