package guard

import (
	"regexp"
	"strings"
)

// Forms documentation writes that look like a credential to a rule but
// are not one: an item of a list of note ids that a rule reads as a name
// and its value, an image reference pinned by digest, a value written as
// a pattern to show a key's length, a masked value, a word in emphasis
// the reader replaces, a label of an error chain, a public key. Each
// holds only for the shape it names; the same position holding a random
// key is still a credential (see docforms_test.go). A literal word stays a
// value (user:password@, api_key: your-api-key; see
// TestLiteralWordsAreValues).

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

// filler reports a value written as a pattern rather than drawn at random:
// a counting run or a repeated block (0123456789abcdef0123…,
// ABCDEFGHIJKLMNOPQRSTUVWXYZ234567, SWMTKN-1-aabbccdd00112233aabb…), which
// examples use to show a key's length and alphabet. Of the pairs of
// adjacent letters and digits (within a part; "-", "_", "." and the rest
// part them), three in four or more repeat a character or step to the next
// one; a generated key has about one in eighteen such pairs, so fifteen
// pairs or more are asked for.
func filler(v string) bool {
	pairs, steps := 0, 0
	prev := byte(0)
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			prev = 0
			continue
		}
		if prev != 0 {
			pairs++
			if c == prev || c == prev+1 {
				steps++
			}
		}
		prev = c
	}
	return pairs >= 15 && 4*steps >= 3*pairs
}

// emphasised reports a word set in Markdown emphasis (_password_,
// *hostname*), the way a manual marks what the reader replaces. A key in
// emphasis is caught before this (strongSecret), and only letters count.
func emphasised(v string) bool {
	if len(v) < 3 || v[0] != v[len(v)-1] || v[0] != '_' && v[0] != '*' {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if c := v[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// masked reports a value mostly hidden by asterisks
// (private_****************, sk_live_****): what is left shows its kind.
func masked(v string) bool {
	n := strings.Count(v, "*")
	return n >= 4 && 2*n >= len(v) && strings.Contains(v, "****")
}

// label reports a word that ends in ":" and is itself a name, the next
// link of an error chain or a connection string (fetch token:
// invalid_grant: maybe…, :s3,env_auth=true:): lower-case letters and "_"
// only, so a generated value with a colon after it is still one.
func label(raw string) bool {
	w, ok := strings.CutSuffix(raw, ":")
	if !ok || w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}

// publicKeyName reports a generic-api-key finding whose secret w[a:]
// is given to a public key named with a space (Issuer Public Key: MFkw…):
// gitleaks' own allowlist lets pub_key and public-key through, and a
// public key is not a secret.
func publicKeyName(r *rule, w string, a int) bool {
	return r.spec.id == "generic-api-key" && publicKey.MatchString(w[strings.LastIndexByte(w[:a], '\n')+1:a])
}

var publicKey = regexp.MustCompile(`(?i)\bpub(?:lic)?[ _.-]?key[\s"'\x60]*(?::|=)[\s"'\x60]*$`)
