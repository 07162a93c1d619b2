package guard

import "strings"

// gitleaks' generic-api-key rule is the one template rule whose keywords
// (key, token, auth, access, api…) stand in ordinary prose and code, so
// its expression ran on most operator windows of a real page and was the
// larger part of the screen's time there: Go's engine tries every start
// position of an expression that begins with [\w.-]{0,50}?. genericMay
// reads what every match of the expression needs, in a few bytes around
// each operator, and the expression runs only where it may match.

// genericRegex is the pattern genericMay is written for; a rule set
// regenerated with another leaves the rule unfiltered.
const genericRegex = "(?i)[\\w.-]{0,50}?(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([\\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\\x60'\"\\s;]|\\\\[nr]|$)"

// genericKeywords are the expression's keyword alternatives, any case
// (wider than its case-sensitive "api"); the longest is 10 bytes.
var genericKeywords = []string{"access", "auth", "api", "credential", "creds", "key", "passwd", "password", "secret", "token"}

const genericKeywordMax = 10

var (
	// genericGap: the bytes [ \t\w.-]{0,20}[\s'"]{0,3} takes between the
	// keyword and the operator, none of which starts an operator.
	genericGap = byteSet(" \t\n\f\r'\"_.-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	// genericLead: what [\x60'"\s=]{0,5} takes after the operator.
	genericLead = byteSet("`'\"\t\n\f\r =")
	// genericValue: every byte either value alternative takes.
	genericValue = byteSet("_.=-+/0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
)

// genericMay reports whether the generic-api-key expression may match in
// s: it does not when no operator byte has a keyword ending at most 23
// gap bytes before it and a run of ten value bytes at most five lead
// bytes after one of the operators that start there. Outside ASCII the
// expression's case folding takes more (K, the Kelvin sign, is k), so
// such text is always let through.
func genericMay(s string) bool {
	if !isASCII(s) {
		return true
	}
	for q := 0; q < len(s); q++ {
		c := s[q]
		if c != '=' && c != '>' && c != ':' && c != '|' && c != '?' && c != ',' {
			continue
		}
		if genericKeywordBefore(s, q) && genericValueAfter(s, q) {
			return true
		}
	}
	return false
}

// genericKeywordBefore reports a keyword that ends at most 23 bytes
// before the operator at q with only gap bytes between: keywords are
// letters, so the keyword and the gap are one run of gap bytes.
func genericKeywordBefore(s string, q int) bool {
	a := q
	for a > 0 && q-a < 23+genericKeywordMax && genericGap[s[a-1]] {
		a--
	}
	run := s[a:q]
	for _, k := range genericKeywords {
		for i := 0; i+len(k) <= len(run); i++ {
			if len(run)-(i+len(k)) <= 23 && strings.EqualFold(run[i:i+len(k)], k) {
				return true
			}
		}
	}
	return false
}

// genericValueAfter reports ten value bytes after at most five lead bytes
// after one of the operators that may start at q (=, =>, >, :, :=, ::=,
// :::=, ||, ?=, ,).
func genericValueAfter(s string, q int) bool {
	lengths := genericOpLengths(s, q)
	for n := 1; n <= 4; n++ {
		if lengths&(1<<n) == 0 {
			continue
		}
		for r := q + n; r <= q+n+5 && r <= len(s); r++ {
			v := r
			for v < len(s) && v-r < 10 && genericValue[s[v]] {
				v++
			}
			if v-r >= 10 {
				return true
			}
			if r == len(s) || !genericLead[s[r]] {
				break
			}
		}
	}
	return false
}

// genericOpLengths are the lengths of the operators that match at q.
// genericOpLengths are the lengths of the operators that match at q, as
// bits (1<<n for a length n).
func genericOpLengths(s string, q int) (lengths uint) {
	at := func(i int, c byte) bool { return i < len(s) && s[i] == c }
	switch s[q] {
	case '=':
		lengths = 1 << 1
		if at(q+1, '>') {
			lengths |= 1 << 2
		}
	case '>', ',':
		lengths = 1 << 1
	case '|':
		if at(q+1, '|') {
			lengths = 1 << 2
		}
	case '?':
		if at(q+1, '=') {
			lengths = 1 << 2
		}
	case ':':
		lengths = 1 << 1
		for n := 1; n <= 3 && at(q+n-1, ':'); n++ {
			if at(q+n, '=') {
				lengths |= 1 << (n + 1)
			}
		}
	}
	return lengths
}
