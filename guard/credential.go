package guard

import (
	"regexp"
	"strings"
)

// Credential reports whether s looks like it holds a credential. It is
// the one screen every output passes (CLI text, CLI --json, MCP) and the
// one every document text passes before any of it is used, so nothing a
// later check would refuse can reach an answer. Two families:
//
//   - the core rules: userinfo in a URL (scheme://user:pass@) or in SCP
//     form (user:pass@host:), AWS, GitHub and Slack token shapes, a private
//     key header, and a secret-named key assigned a value
//     (aws_secret_access_key = …, "password": "…", Authorization: Bearer …);
//   - every rule of gitleaks' default configuration (gitleaks_rules.go),
//     applied as gitleaks applies it, with its entropy floors and
//     allowlists.
//
// A placeholder is not a credential: {{password}}, <token>, ${TOKEN},
// $TOKEN, %TOKEN%, [password], xxxx, ***, and values made only of words
// like "your", "api", "key", "password", "here" are let through, as are
// type words (token: string) and plain settings (auth: required).
func Credential(s string) bool {
	ascii, control := asciiControl(s)
	t := securityTextOf(s, ascii, control)
	if strings.IndexByte(t, '@') >= 0 && (userinfo(t) || sqlplusFinds(t)) {
		return true
	}
	if mayHoldToken(t) && (tokenRe.MatchString(t) || tokenAcrossLines(t)) {
		return true
	}
	return screen().finds(t) || revealed(s, t, ascii)
}

// CredentialName reports a file or folder name that holds a credential:
// the screen runs over the name, its stem (a token's end rule may not take
// ".md" as its end), the stem with its first letter's case changed
// (Ghp_…), the stem with its separators as spaces, and the stem as an id
// derived from it reads (lower-cased, separators as "-"). A name with no
// operator, no "@" and no keyword of an in-word rule cannot hold one and
// costs one automaton pass.
func CredentialName(name string) bool {
	if len(name) < 12 && !strings.ContainsAny(name, "@:=,>|") {
		return false
	}
	// Decoded first: a look-alike letter, a character reference or an
	// invisible space in a name must not hide the key's prefix from the gate.
	t := securityText(name)
	if mayBeEncoded(name) {
		t = securityText(decode(name))
	}
	if !strings.ContainsAny(t, "@:=,>|") {
		var set ruleSet
		if screen().word.scan(t, 0, &set); set.empty() {
			return false
		}
	}
	stem := t
	if i := strings.LastIndexByte(t, '.'); i > 0 && len(t)-i <= 10 {
		stem = t[:i]
	}
	swapped := strings.ToLower(stem[:1]) + stem[1:]
	if swapped == stem {
		swapped = strings.ToUpper(stem[:1]) + stem[1:]
	}
	var b strings.Builder
	for _, v := range []string{t, stem, swapped, nameSeparators.Replace(stem), slugLike(stem)} {
		b.WriteString(v)
		b.WriteString(" \n ")
	}
	return Credential(b.String())
}

var nameSeparators = strings.NewReplacer("-", " ", ".", " ", "+", " ", ",", " ")

// slugLike is the name as an id derived from it reads: lower-cased, every
// run of other characters than a-z 0-9 . _ - one "-" (graph.Slugify).
func slugLike(s string) string {
	b := make([]byte, 0, len(s))
	run := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		keep := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		switch {
		case keep:
			b = append(b, c)
		case !run:
			b = append(b, '-')
		}
		run = !keep
	}
	return string(b)
}

var (
	credURL     = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://([^\s/@:]*):([^\s/@]+)@`)
	scpCred     = regexp.MustCompile(`(?:^|[\s"'(<\[=,;])([^\s/@:"'(<\[=,;]+):([^\s/@]+)@[A-Za-z0-9_.\-\[\]]+:`)
	tokenRe     = regexp.MustCompile(`(?:^|[^` + wordClass + `])(?:AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{20,}|xox[baprs]-[A-Za-z0-9-]{10,})(?:[^` + wordClass + `]|$)`)
	templateRef = regexp.MustCompile(`\{\{[^{}]*\}\}`)
	privKey     = regexp.MustCompile(`-----BEGIN\s+(?:[A-Z0-9\s]+\s)?PRIVATE\s+KEY-----`)
)

// userinfo finds a user:password pair before an @, in a URL or SCP form,
// whose password is not a placeholder. Only the lines with an "@" are
// matched: neither pattern takes a line break but as the mark before an
// SCP user, so each line, read from the break before it, has the matches
// the whole text has there.
func userinfo(t string) bool {
	for i := nextByte(t, 0, '@'); i < len(t); {
		start := max(0, strings.LastIndexByte(t[:i], '\n'))
		end := nextByte(t, i, '\n')
		line := t[start:end]
		for _, re := range []*regexp.Regexp{credURL, scpCred} {
			for _, m := range re.FindAllStringSubmatchIndex(line, -1) {
				if !userinfoPlaceholder(t, start+m[4], start+m[5]) {
					return true
				}
			}
		}
		i = nextByte(t, end, '@')
	}
	return false
}

// inTemplate reports that t[a:b] lies inside a {{…}} placeholder on its
// line ("{{mysql://user:pass@host/db}}"): template syntax stands for the
// whole of what it holds. The look either way is bounded.
func inTemplate(t string, a, b int) bool {
	lo := max(0, a-2*maxValue)
	before := t[lo:a]
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	open := strings.LastIndex(before, "{{")
	if open < 0 || strings.Contains(before[open:], "}}") {
		return false
	}
	after := t[b:min(len(t), b+2*maxValue)]
	if i := strings.IndexByte(after, '\n'); i >= 0 {
		after = after[:i]
	}
	return strings.Contains(after, "}}") || strings.Contains(t[a:b], "}}")
}

// mayHoldToken is a cheap filter for tokenRe: an AKIA or xox prefix, or
// "gh" followed by one of pousr and "_".
func mayHoldToken(t string) bool {
	if strings.Contains(t, "AKIA") || strings.Contains(t, "xox") {
		return true
	}
	// Anchored on the rare "_" rather than the common "g".
	for i := 0; ; {
		j := strings.IndexByte(t[i:], '_')
		if j < 0 {
			return false
		}
		k := i + j
		if k >= 3 && t[k-3] == 'g' && t[k-2] == 'h' && strings.IndexByte("pousr", t[k-1]) >= 0 {
			return true
		}
		i = k + 1
	}
}

// tokenAcrossLines looks for the token shapes with line breaks taken out
// after each AKIA, xox or gh?_ prefix: a key split over two lines is
// still a key.
func tokenAcrossLines(t string) bool {
	if strings.IndexByte(t, '\n') < 0 {
		return false
	}
	try := func(i int) bool {
		a := max(0, i-1)
		w := t[a:min(len(t), a+120)]
		j := strings.IndexByte(w[i-a:], '\n')
		if j < 0 {
			return false
		}
		j += i - a
		k := j + 1
		if j > 0 && w[j-1] == '\r' {
			j--
		}
		return tokenRe.MatchString(w[:j] + w[k:])
	}
	for _, p := range []string{"AKIA", "xox"} {
		for i := nextIndex(t, 0, p); i < len(t); i = nextIndex(t, i+1, p) {
			if try(i) {
				return true
			}
		}
	}
	for k := nextByte(t, 0, '_'); k < len(t); k = nextByte(t, k+1, '_') {
		if k >= 3 && t[k-3] == 'g' && t[k-2] == 'h' && strings.IndexByte("pousr", t[k-1]) >= 0 && try(k-3) {
			return true
		}
	}
	return false
}

// Word-boundary classes: Python's \w is Unicode-aware.
const wordClass = `\p{L}\p{N}_`

// assignment finds a secret-named key given a value on the same line:
// `name [quote] [spaces] =|: [spaces] [quote] value`. It scans once for
// "=" and ":" and looks back for the name, so its cost is linear.
func assignment(t string) bool {
	// The next "=" and ":" are tracked apart: IndexByte is vectorised,
	// IndexAny is a byte loop, and this scan sees every document.
	eq, colon := nextByte(t, 0, '='), nextByte(t, 0, ':')
	for {
		op := min(eq, colon)
		if op == len(t) {
			return false
		}
		if op == eq {
			eq = nextByte(t, op+1, '=')
		} else {
			colon = nextByte(t, op+1, ':')
		}
		if assignmentAt(t, op) {
			return true
		}
	}
}

// assignmentAt reports whether the "=" or ":" at op ends a secret name and
// starts a value that is not a placeholder or a setting.
func assignmentAt(t string, op int) bool {
	end := op
	for k := 0; k < 3 && end > 0 && strings.IndexByte(" \t\"'", t[end-1]) >= 0; k++ {
		end--
	}
	if op+1 < len(t) && t[op+1] == t[op] || !secretName(t, end) && !foreignName(t, end) || insidePlaceholder(t, end) {
		// token::list, a::b: a scope, not an assignment.
		return false
	}
	a, b := valueSpan(t, op+1)
	if b-a <= 2 && b > a && strings.Trim(t[a:b], "*_") == "" {
		// **Password:** hunter2: the label's closing emphasis.
		a, b = valueSpan(t, b)
	}
	if authSchemes[strings.ToLower(strings.Trim(t[a:b], `"'`))] {
		// Authorization: Bearer <credential>: the scheme names the kind.
		a, b = valueSpan(t, b)
	}
	if spellsName(t[nameStart(t, end):end], t[a:b]) || secretVariable(t, end, a, b) {
		return false
	}
	return isValue(t, a, b)
}

// nameStart is where the name that ends at t[end] starts.
func nameStart(t string, end int) int {
	for end > 0 && isNameByte(t[end-1]) {
		end--
	}
	return end
}

// insidePlaceholder reports a name that opens a {{…}} placeholder, the
// way command references write "{{Authorization: Bearer token}}", or a
// shell expansion.
func insidePlaceholder(t string, end int) bool {
	start := end
	for start > 0 && isNameByte(t[start-1]) {
		start--
	}
	// ${TOKEN:-default} is a shell expansion, not an assignment.
	return start >= 2 && (t[start-2:start] == "{{" || t[start-2:start] == "${")
}

// secretName reports whether t[:end] ends with a name whose last part is
// a secret noun: password, passphrase, secret, token, credential(s),
// authorization or auth, or key after api, access, secret, private,
// client, signing, encryption or master. Parts split at _ - . and at
// camelCase; "private key" may be two words. It allocates nothing: it
// sees every "=" and ":" of every document.
func secretName(t string, end int) bool {
	start := end
	for start > 0 && isNameByte(t[start-1]) {
		start--
	}
	if start == end {
		return false
	}
	if start > 0 {
		// Inside a longer word (my$password) or a colon path
		// (force:auth:web): not a name.
		if c := t[start-1]; c >= 0x80 || c == '$' || c == ':' {
			return false
		}
	}
	ps := lastPart(t, start, end)
	last := t[ps:end]
	if strings.EqualFold(last, "key") {
		pe := ps
		for pe > start && (t[pe-1] == '_' || t[pe-1] == '-' || t[pe-1] == '.') {
			pe--
		}
		if pe == start && start >= 2 && t[start-1] == ' ' {
			// "private key:", "API key ="
			pe = start - 1
			for start = pe; start > 0 && isNameByte(t[start-1]); start-- {
			}
		}
		if pe <= start {
			return false
		}
		q := t[lastPart(t, start, pe):pe]
		for w := range keyQualifiers {
			if strings.EqualFold(q, w) {
				return true
			}
		}
		return false
	}
	for _, n := range exactNouns {
		if strings.EqualFold(last, n) {
			// PWD and OLDPWD are the shell's working folders.
			return !(n == "pwd" && (t[start:end] == "PWD" || t[start:end] == "OLDPWD"))
		}
	}
	for _, n := range secretNouns {
		if len(last) >= len(n) && strings.EqualFold(last[len(last)-len(n):], n) {
			return true
		}
	}
	return false
}

// lastPart is the start of the last part of the name t[start:end]: after
// the last _ - . or at the last lower-to-upper case change.
func lastPart(t string, start, end int) int {
	for i := end - 1; i > start; i-- {
		c := t[i-1]
		if c == '_' || c == '-' || c == '.' {
			if i == end {
				return end
			}
			return i
		}
		if t[i] >= 'A' && t[i] <= 'Z' && c >= 'a' && c <= 'z' {
			return i
		}
	}
	return start
}

var (
	secretNouns = []string{"password", "passwd", "passphrase", "secret", "token", "credential", "apikey", "accesskey",
		"secretkey", "privatekey", "passwort", "kennwort", "wachtwoord", "losenord"}
	// exactNouns are secret names only as a whole part: "pass" ends
	// bypass and compass, "pwd" is also the shell's working folder.
	exactNouns = []string{"auth", "authorization", "credentials", "pass", "pwd", "contrasena", "contrasenya",
		"senha", "adgangskode", "passord", "salasana", "heslo", "jelszo", "sifre", "parola", "parol", "geslo",
		"lozinka", "motdepasse"}
	keyQualifiers = set("api", "access", "secret", "private", "client", "signing", "encryption", "master", "auth", "account", "service", "deploy", "ssh")
	authSchemes   = set("bearer", "basic", "token", "digest", "bot", "apikey", "api-key", "sso-key")
)

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
