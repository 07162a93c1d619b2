package guard

import "strings"

// CredentialAt says where and what the credential screen found in s, for
// the owner's own view of what was left out: the line (1-based) on which
// the first credential it finds is complete, and its class — the name of
// the rule that matches it (a core class such as "url-userinfo" or
// "secret-assignment", or a gitleaks rule id such as
// "stripe-access-token"), "credential" when no single rule names it (a
// key only the whole text reveals). Never any part of the value. It
// returns 0 when Credential finds nothing.
func CredentialAt(s string) (class string, line int) {
	line = LineWhere(s, Credential)
	if line == 0 {
		return "", 0
	}
	starts := lineStarts(s)
	end := lineEnd(s, starts, line)
	// The shortest run of lines ending at line that still holds it.
	lo, hi := 1, line+1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if Credential(s[starts[mid-1]:end]) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return credentialClass(s[starts[lo-1]:end]), line
}

// LineWhere is the first line N (1-based) of s such that holds is true of
// s up to the end of line N, found in a logarithmic number of calls; 0
// when holds is false of the whole of s.
func LineWhere(s string, holds func(string) bool) int {
	if !holds(s) {
		return 0
	}
	starts := lineStarts(s)
	lo, hi := 0, len(starts) // holds of lines 1..hi, not of 1..lo
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if holds(s[:lineEnd(s, starts, mid)]) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func lineStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' && i+1 < len(s) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineEnd is the offset just past line n (its newline excluded).
func lineEnd(s string, starts []int, n int) int {
	if n < len(starts) {
		return starts[n] - 1
	}
	return len(s)
}

// credentialClass names the rule that finds a credential in w, a few
// lines Credential finds one in.
func credentialClass(w string) string {
	for _, v := range []string{securityText(w), securityText(decode(w))} {
		switch {
		case strings.IndexByte(v, '@') >= 0 && userinfo(v):
			return "url-userinfo"
		case privKey.MatchString(v):
			return "private-key"
		case mayHoldToken(v) && tokenRe.MatchString(v):
			m := tokenRe.FindString(v)
			switch {
			case strings.Contains(m, "AKIA"):
				return "aws-access-key-id"
			case strings.Contains(m, "xox"):
				return "slack-token"
			}
			return "github-token"
		case assignment(v):
			return "secret-assignment"
		case commandFinds(v) || strings.IndexByte(v, '@') >= 0 && sqlplusFinds(v):
			return "command-line-password"
		case pgpassIn(v):
			return "pgpass-password"
		}
		if _, netrc := lineEnds(v); netrc {
			return "netrc-password"
		}
		for _, r := range screen().rules {
			if r.shape != pathOnly && r.finds(v) {
				return r.spec.id
			}
		}
		if vendorKeyIn(v) {
			return "vendor-key" // a prefix's key no rule's exact format names
		}
	}
	return "credential"
}

// pgpassIn reports a .pgpass line among v's words.
func pgpassIn(v string) bool {
	for i, done := nextByte(v, 0, ':'), 0; i < len(v); i = nextByte(v, i+1, ':') {
		if i >= done {
			var found bool
			if done, found = pgpassAt(v, i); found {
				return true
			}
		}
	}
	return false
}

// vendorKeyIn reports a key that starts with a vendor prefix in v.
func vendorKeyIn(v string) bool {
	e := screen()
	found := false
	forLongWords(v, e.gate, func(a, b int) bool {
		var set ruleSet
		w := v[max(a-1, 0):min(b+1, len(v))]
		e.word.scan(w, 0, &set)
		for i, p := range vendorPrefixes {
			found = found || set.has(len(e.rules)+i) && prefixedKey(w, p)
		}
		return found
	})
	return found
}
