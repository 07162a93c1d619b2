package guard

// gitleaks' vault-service-token rule takes "s." as its key, which every
// long word of code holding "process.env" or "fs.readFile" has: on a
// page of API docs its expression ran on thousands of words. vaultMay
// reads what every match needs, and the expression runs only where it
// may match.

// vaultRegex is the pattern vaultMay is written for; a rule set
// regenerated with another leaves the rule unfiltered.
const vaultRegex = "\\b((?:hvs\\.[\\w-]{90,120}|s\\.(?i:[a-z0-9]{24})))(?:[\\x60'\"\\s;]|\\\\[nr]|$)"

// vaultMay reports whether the vault-service-token expression may match
// in w: either alternative is an "s." followed by 24 or more bytes of
// [\w-] (hvs.[\w-]{90,120} and s.[a-z0-9]{24} alike). Outside ASCII the
// expression's case folding takes more (K, the Kelvin sign, is k), so
// such text is always let through.
func vaultMay(w string) bool {
	if !isASCII(w) {
		return true
	}
	for i := nextByte(w, 0, '.'); i < len(w); i = nextByte(w, i+1, '.') {
		if i == 0 || w[i-1] != 's' || len(w)-(i+1) < 24 {
			continue
		}
		n := 0
		for n < 24 && isWordOrDash(w[i+1+n]) {
			n++
		}
		if n == 24 {
			return true
		}
	}
	return false
}

func isWordOrDash(c byte) bool { return c == '_' || c == '-' || isAlnum(c) }
