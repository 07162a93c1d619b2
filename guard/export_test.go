package guard

// HasControl exposes hasControl to the fuzz test.
var HasControl = hasControl

// FastScansAgree compares the vectorised scans with plain loops over t: the
// token prefilter never rejects what the token pattern matches, and the
// assignment scan visits every "=" and ":".
func FastScansAgree(t string, m Mode) bool {
	if tokenRe.MatchString(t) && !mayHoldToken(t) {
		return false
	}
	slow := false
	for i := 0; i < len(t); i++ {
		if (t[i] == '=' || t[i] == ':') && assignmentAt(t, i, m) {
			slow = true
			break
		}
	}
	return assignment(t, m) == slow
}
