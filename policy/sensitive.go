package policy

import (
	"regexp"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"

	"github.com/vivary-dev/vivary-go/guard"
)

// The secret-looking name list. It is applied to every path component in
// skeleton form (guard.Skeleton), so sеcret.md with a Cyrillic е, an NFD
// sécret.md, ｓｅｃｒｅｔ.md and s\u200becret.md all match "secret"; a
// path with any matching component is never listed, counted by name or
// read. The rules over-hide on purpose: a note called
// passwords.md is exactly what must stay out of an agent's context.
var (
	// sensitiveExact: a component equal to one of these.
	sensitiveExact = set(
		// env and shell secrets
		".env", ".envrc",
		// directories of keys and cloud credentials
		".aws", ".ssh", ".gnupg", ".docker", ".kube", ".azure", ".password-store", ".chef", ".git",
		"credentials", "private", "secrets",
		// ssh keys
		"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519",
		// package registries and auth files
		".npmrc", ".pypirc", ".dockercfg", ".git-credentials", ".gitconfig", ".netrc", "_netrc",
		".pgpass", ".htpasswd", "htpasswd", ".boto", ".s3cfg", "kubeconfig", "terraform.tfvars",
		"master.key", "otr.private_key", "sftp-config.json", "adc.json",
		// shell and database histories
		".bash_history", ".zsh_history", ".sh_history", ".history", ".psql_history",
		".mysql_history", ".irb_history",
	)
	// sensitivePrefix: a component starting with one of these.
	sensitivePrefix = []string{".env", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"}
	// sensitiveSuffix: a component ending with one of these.
	sensitiveSuffix = []string{
		".pem", ".key", ".keypair", ".p12", ".pfx", ".pkcs12", ".asc", ".jks", ".keystore",
		".keyring", ".gpg", ".ppk", ".kdb", ".kdbx", ".agilekeychain", ".keychain", ".kwallet",
		".psafe3", ".ovpn", ".tfstate", "_rsa", "_dsa", "_ecdsa", "_ed25519",
	}
	// sensitiveWords: a component containing one of these.
	sensitiveWords = []string{
		"api-key", "api_key", "apikey", "credential", "password", "passwd", "private-key",
		"private_key", "privatekey", "secret", "token",
	}
	userinfoSegment = regexp.MustCompile(`[^/@:\s]+:[^/@\s]+@`)
)

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// SensitiveName reports whether one path component looks secret: its
// skeleton (guard.Skeleton: look-alike letters, accents, invisible
// characters, full-width forms and case set aside), or the skeleton of its
// percent-decoded form, matches the list; or the credential screen finds a
// credential in the name, its stem or its percent-decoded form.
func SensitiveName(seg string) bool {
	forms := nameForms(seg)
	for _, f := range forms {
		if listed(guard.Skeleton(f)) {
			return true
		}
		// A capital I reads as l (credentiaIs.md), but folding makes it an
		// i, so the name is also matched with each capital I as an l,
		// whatever form it takes before NFKD (Ｉ, ℐ, Ⅰ).
		if d := norm.NFKD.String(f); strings.ContainsAny(d, "IΙІ") && listed(guard.Skeleton(capitalI.Replace(d))) {
			return true
		}
	}
	for _, f := range forms {
		if guard.CredentialName(f) {
			return true
		}
	}
	return false
}

// NameHoldsCredential reports a path component that holds a credential:
// the credential screen finds one in the name, its stem or its
// percent-decoded form, or it holds a user:password@ form. Such a name is
// never shown, not even to the owner: showing it would show the value.
func NameHoldsCredential(seg string) bool {
	for _, f := range nameForms(seg) {
		if sk := guard.Skeleton(f); strings.ContainsRune(sk, '@') && userinfoSegment.MatchString(sk) || guard.CredentialName(f) {
			return true
		}
	}
	return false
}

// nameForms are the forms of a name the screens judge: as it is, and
// percent-decoded when that differs.
func nameForms(seg string) []string {
	if d := percentDecoded(seg); d != seg {
		return []string{seg, d}
	}
	return []string{seg}
}

var capitalI = strings.NewReplacer("I", "l", "Ι", "l", "І", "l")

// skeletons is the list in skeleton form, built once.
var skeletons = sync.OnceValue(func() (l struct {
	exact                 map[string]bool
	prefix, suffix, words []string
}) {
	l.exact = map[string]bool{}
	for x := range sensitiveExact {
		l.exact[guard.Skeleton(x)] = true
	}
	sk := func(xs []string) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = guard.Skeleton(x)
		}
		return out
	}
	l.prefix, l.suffix, l.words = sk(sensitivePrefix), sk(sensitiveSuffix), sk(sensitiveWords)
	return l
})

func listed(s string) bool {
	l := skeletons()
	if l.exact[s] || (strings.ContainsRune(s, '@') && userinfoSegment.MatchString(s)) {
		return true
	}
	for _, p := range l.prefix {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	for _, p := range l.suffix {
		if strings.HasSuffix(s, p) {
			return true
		}
	}
	for _, w := range l.words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// percentDecoded decodes %XX escapes, again while new ones appear (at most
// three rounds); a % not followed by two hex digits stays as it is.
func percentDecoded(s string) string {
	for round := 0; round < 3 && strings.IndexByte(s, '%') >= 0; round++ {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
				i += 2
				continue
			}
			b.WriteByte(s[i])
		}
		if b.String() == s {
			break
		}
		s = b.String()
	}
	return s
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// Sensitive reports whether any component of the slash-separated rel looks secret.
func Sensitive(rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		if SensitiveName(seg) {
			return true
		}
	}
	return false
}
