package guard

import "strings"

// Forms documentation writes that look like a credential to a rule but
// are not one: an item of a list of note ids that a rule reads as a name
// and its value, and an image reference pinned by digest. Each holds only
// for the shape it names; the same position holding a random key is still
// a credential (see docforms_test.go). A literal word stays a value
// (user:password@, api_key: your-api-key; see TestLiteralWordsAreValues).

// listItemPair reports that the finding whose secret is w[a:b] reads two
// items of a flow list (related_changes: [bodi-bapi-00162, ganu-dome-00719])
// as a name, its "," operator and a value: the "name" is an unquoted item
// of a [...] list whose own key is not a secret's name, and the "value" is
// an id made of words and numbers, as note ids and slugs are. A key in a
// list under a key named like a secret's (tokens:, api_keys:), or a
// random one in any list, is not let through.
func listItemPair(w string, a, b int) bool {
	if !slugID(w[a:b]) || b < len(w) && w[b] != ',' && w[b] != ']' {
		return false
	}
	op := a
	for op > 0 && w[op-1] == ' ' {
		op--
	}
	if op == 0 || w[op-1] != ',' {
		return false
	}
	line := w[strings.LastIndexByte(w[:a], '\n')+1 : a]
	open := strings.LastIndexByte(line, '[')
	if open < 0 || strings.ContainsAny(line[open:], "]\"'`=:") {
		return false
	}
	owner := strings.TrimRight(line[:open], " \t")
	if strings.HasSuffix(owner, ":") {
		k := strings.ToLower(strings.Trim(owner[:len(owner)-1], " \t\"'-"))
		for _, n := range []string{"access", "auth", "api", "cred", "key", "pass", "pwd", "secret", "token"} {
			if strings.Contains(k, n) {
				return false // api_keys:, tokens:, credentials:
			}
		}
		return k != "" && !strings.ContainsAny(k, " \t")
	}
	return false
}

// slugID reports an id made of words and numbers joined by "-", "_" or
// ".": each part letters only or digits only, none long. A generated key
// mixes letters and digits within a part or runs long.
func slugID(s string) bool {
	if s == "" {
		return false
	}
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		letters, digits := 0, 0
		for i := 0; i < len(p); i++ {
			switch c := p[i]; {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
				letters++
			case c >= '0' && c <= '9':
				digits++
			default:
				return false
			}
		}
		if letters > 0 && digits > 0 || len(p) > 12 {
			return false
		}
	}
	return true
}

// digestPin reports that a user:password@host: match is an image
// reference pinned by digest (redis:7.4.1@sha256:6a69…): the "password" is
// a tag, the "host" a digest algorithm followed by its hex digest.
func digestPin(t string, passEnd int) bool {
	rest := t[passEnd:]
	for _, alg := range []string{"@sha256:", "@sha512:", "@sha384:"} {
		if strings.HasPrefix(rest, alg) {
			hex := rest[len(alg):]
			n := 0
			for n < len(hex) && (hex[n] >= '0' && hex[n] <= '9' || hex[n] >= 'a' && hex[n] <= 'f') {
				n++
			}
			return n >= 32
		}
	}
	return false
}

// imageTag reports a tag as an image reference writes it: a version or a
// word (7.4.1, 9.4, latest, 1.25-alpine), not a generated secret.
func imageTag(s string) bool {
	return s != "" && len(s) <= 32 && !strongSecret(s) && strings.Trim(s, "0123456789abcdefghijklmnopqrstuvwxyz.-_") == ""
}

// userinfoPlaceholder reports that the user:password pair t[ua:ub],
// t[pa:pb] (a URL's or an SCP address's) stands for one: a placeholder
// password, a template or a digest pin.
func userinfoPlaceholder(t string, pa, pb int) bool {
	return placeholder(t[pa:pb]) || inTemplate(t, pa, pb) ||
		imageTag(t[pa:pb]) && digestPin(t, pb)
}
