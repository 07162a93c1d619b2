package guard

import "strings"

// The operator scan: every "=", ":", ",", ">" and "|" of a text, in
// order, is where the core assignment rule, gitleaks' keyword-assignment
// templates and the curl rules can match. Each is checked against a window
// around it; windows that overlap are merged and matched once, and what a
// line needs (its curl flag, its command) is worked out once a line, so
// the scan reads each byte a bounded number of times however densely the
// operators stand (a note of "a:b@" repeated was quadratic before).

// opsFind reports a secret found at one of t's operators.
func (e *engine) opsFind(t string) bool {
	var next [5]int
	for k, c := range opBytes {
		next[k] = nextByte(t, 0, c)
	}
	var w opWindow
	var ends valueEnds
	var curl curlLines
	pgDone := 0 // the end of the last word read as a .pgpass line
	for {
		k := 0
		for j := 1; j < len(next); j++ {
			if next[j] < next[k] {
				k = j
			}
		}
		op := next[k]
		if op == len(t) {
			break
		}
		next[k] = nextByte(t, op+1, opBytes[k])
		if (t[op] == '=' || t[op] == ':') && (assignmentAt(t, op) || curl.finds(e, t, op)) {
			return true
		}
		if t[op] == ':' {
			if op >= 2 && t[op-2:op] == "/p" && commandLineAt(t, op) {
				return true // xfreerdp /p:SECRET
			}
			if op >= pgDone {
				var found bool
				if pgDone, found = pgpassAt(t, op); found {
					return true
				}
			}
		}
		j := op + 1
		for n := 0; n < 5 && j < len(t) && valueLead[t[j]]; n++ {
			j++
		}
		if v := ends.at(t, j) - j; v >= e.minOp {
			from, to := max(0, op-lookBack), min(len(t), j+v+2)
			if w.to > w.from && from <= w.to {
				w.to, w.value = max(w.to, to), max(w.value, v)
				continue
			}
			if w.to > w.from && e.windowFinds(t, w) {
				return true
			}
			w = opWindow{from, to, v}
		}
	}
	return w.to > w.from && e.windowFinds(t, w)
}

var opBytes = [5]byte{'=', ':', ',', '>', '|'}

// opWindow is a stretch of text around operators whose windows overlap,
// with the longest value any of them had.
type opWindow struct{ from, to, value int }

// windowFinds matches the template rules whose keyword is in the window.
func (e *engine) windowFinds(t string, w opWindow) bool {
	s := t[w.from:w.to]
	var set ruleSet
	e.tmpl.scan(s, 0, &set)
	if set.empty() {
		return false
	}
	for k, r := range e.rules {
		if set.has(k) && r.minWord <= w.value && r.finds(s) {
			return true
		}
	}
	return false
}

// valueEnds finds where the value after an operator ends (the next byte of
// valueEnd), remembering the last answer: operators inside one long value
// share it instead of each reading the value again.
type valueEnds struct{ from, end int }

func (v *valueEnds) at(t string, j int) int {
	if v.end > 0 && j <= v.end && j >= v.from {
		return v.end
	}
	if v.end > 0 && j < v.from && j <= v.end {
		clean := true
		for i := j; i < v.from; i++ {
			clean = clean && !valueEnd[t[i]]
		}
		if clean {
			return v.end
		}
	}
	n := j
	for n < len(t) && !valueEnd[t[n]] {
		n++
	}
	v.from, v.end = j, n
	return n
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

// curlLines runs the curl rules once for each line that has an operator
// after a -H/--header or -u/--user flag, over that line and the six
// before it, when "curl" is among them.
type curlLines struct {
	start, end int // the line last looked at
	scanned    int // how far into it no flag was found
	flag       bool
	checked    bool
}

func (c *curlLines) finds(e *engine, t string, op int) bool {
	if c.end == 0 || op >= c.end || op < c.start {
		c.start = strings.LastIndexByte(t[:op], '\n') + 1
		c.end = nextByte(t, op, '\n')
		c.scanned, c.flag, c.checked = c.start, false, false
	}
	if !c.flag {
		// Only the part of the line before the operator is read, and
		// each byte once: a flag ends at most 8 bytes before where the
		// last look stopped.
		from := max(c.start, c.scanned-8)
		c.flag = firstFlag(t[from:op]) >= 0
		c.scanned = op
	}
	if c.checked || !c.flag {
		return false
	}
	c.checked = true
	from := c.start
	for k := 0; k < 6 && from > 0; k++ {
		from = strings.LastIndexByte(t[:from-1], '\n') + 1
	}
	w := t[from:min(c.end, len(t))]
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

// firstFlag is the index of the first -H, -u or --header in line, or -1.
func firstFlag(line string) int {
	first := -1
	for _, f := range []string{"-H", "-u", "--header"} {
		if i := strings.Index(line, f); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	return first
}
