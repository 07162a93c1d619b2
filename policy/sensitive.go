package policy

import (
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/vivary-dev/vivary-go/guard"
)

// The secret-looking name list. It is applied to every path component after
// NFKC and lower-casing; a path with any matching component is never listed,
// counted by name or read. The rules over-hide on purpose: a note called
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

// SensitiveName reports whether one path component looks secret.
func SensitiveName(seg string) bool {
	s := seg
	if !guard.IsASCII(s) {
		s = norm.NFKC.String(s)
	}
	s = strings.ToLower(s)
	if sensitiveExact[s] || (strings.ContainsRune(s, '@') && userinfoSegment.MatchString(s)) {
		return true
	}
	for _, p := range sensitivePrefix {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	for _, p := range sensitiveSuffix {
		if strings.HasSuffix(s, p) {
			return true
		}
	}
	for _, w := range sensitiveWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Sensitive reports whether any component of the slash-separated rel looks secret.
func Sensitive(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if SensitiveName(seg) {
			return true
		}
	}
	return false
}
