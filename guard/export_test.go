package guard

// HasControl exposes hasControl to the fuzz test.
var HasControl = hasControl

// ASCIIControl exposes asciiControl to the fuzz test.
var ASCIIControl = asciiControl

// FastScansAgree compares the vectorised scans with plain loops over t: the
// token prefilter never rejects what the token pattern matches, the fence
// search finds the "-----" strings.Index does from every offset, the
// assignment scan visits every "=" and ":", and the word gate reports
// exactly the words of at least n bytes.
func FastScansAgree(t string, n int) bool {
	if tokenRe.MatchString(t) && !mayHoldToken(t) {
		return false
	}
	slow := false
	for i := 0; i < len(t); i++ {
		if (t[i] == '=' || t[i] == ':') && assignmentAt(t, i) {
			slow = true
			break
		}
	}
	if assignment(t) != slow {
		return false
	}
	for i := 0; i <= len(t); i++ {
		if nextDashes(t, i) != nextIndex(t, i, "-----") {
			return false
		}
	}
	var fast, plain [][2]int
	forLongWords(t, n, func(a, b int) bool { fast = append(fast, [2]int{a, b}); return false })
	slowLongWords(t, 0, n, func(a, b int) bool { plain = append(plain, [2]int{a, b}); return false })
	if len(fast) != len(plain) {
		return false
	}
	for i := range fast {
		if fast[i] != plain[i] {
			return false
		}
	}
	return true
}

// Gate reports the screen's word gate and the shortest template secret.
func Gate() (int, int) { e := screen(); return e.gate, e.minOp }

// RuleIDs lists the gitleaks rules and the shape each is screened by.
func RuleIDs() map[string]int {
	m := map[string]int{}
	for _, r := range screen().rules {
		m[r.spec.id] = r.shape
	}
	return m
}

// ShortRules lists rules by their gate length.
func ShortRules(below int) map[string]int {
	m := map[string]int{}
	for _, r := range screen().rules {
		if r.minWord < below && (r.shape == assigned || r.shape == inWord) {
			m[r.spec.id] = r.minWord
		}
	}
	return m
}

// ShapeOKOn is RelPathShape with the Windows name rule on or off.
func ShapeOKOn(p string, windows bool) bool { return shapeFor(p, windows) == shapeOK }

// ContainsRootOn is ContainsRoot with Windows' forms on or off.
var ContainsRootOn = containsRoot
