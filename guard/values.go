package guard

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// What stands after a secret's name is a value only when it looks like
// one. Not values: an explicit placeholder (template syntax), a type
// (token: String,), a plain setting (auth: required), a link, a list
// number, a call in code (password = getpass()), and the start of a
// sentence (this token is a secret: Do not share it). A literal word is a
// value: admin, root, changeme and password are the working passwords of
// real routers and databases.

// maxValue bounds how far a value is read: what it holds past that
// decides nothing, and an unbounded read from every operator of a long
// word would make the scan quadratic.
const maxValue = 256

// valueSpan is the first word after i on the same line, at most maxValue
// bytes of it: a template reference is part of it ({{user}}hunter2), a
// closing bracket or ";" ends it.
func valueSpan(t string, i int) (a, b int) {
	for k := 0; i < len(t) && (t[i] == ' ' || t[i] == '\t') && k < maxValue; k++ {
		i++
	}
	end := min(len(t), i+maxValue)
	j := i
	for j < end && !isSpaceByte(t[j]) {
		if t[j] == '{' && strings.HasPrefix(t[j:], "{{") {
			if k := strings.Index(t[j:end], "}}"); k > 0 && !strings.ContainsAny(t[j:j+k], " \t\n") {
				j += k + 2
				continue
			}
		}
		if strings.IndexByte("}]),;", t[j]) >= 0 || j > i && (t[j] == '"' || t[j] == '\'') && t[i] != t[j] {
			// A quote the value did not open closes the string it is in.
			break
		}
		j++
	}
	return i, j
}

// isValue reports whether t[a:b], the word after a secret's name and its
// operator, is a value that may be a secret.
func isValue(t string, a, b int) bool {
	raw := t[a:b]
	v := strings.Trim(raw, "\"'`,;")
	if v == "" {
		return false
	}
	if c := closer(v[0]); c != 0 && strings.IndexByte(v, c) < 0 {
		// <your password here>, [optional token]: a bracketed placeholder
		// may hold spaces; the span up to its closing mark is the value.
		rest := t[a+strings.IndexByte(raw, v[0]) : min(len(t), a+maxValue)]
		if k := strings.IndexByte(rest, c); k > 0 && strings.IndexByte(rest[:k], '\n') < 0 && placeholder(rest[:k+1]) {
			return false
		}
	}
	lv := strings.ToLower(v)
	if safeValues[lv] || proseWords[lv] || placeholder(v) || ordinal(v) || label(raw) {
		return false
	}
	if inTemplate(t, a, b) {
		return false
	}
	if filePath(v) || codeWords[v] {
		return false
	}
	if codeSpan(t, a) {
		return false
	}
	quoted := raw[0] == '"' || raw[0] == '\'' || raw[0] == '`'
	if !quoted && (link(t[a:min(len(t), a+maxValue)]) || typeName(t, a, b, raw) || call(v)) {
		return false
	}
	return quoted || !sentence(t, v, b)
}

// closer is the mark that closes a bracket opened by c, or 0.
func closer(c byte) byte {
	switch c {
	case '<':
		return '>'
	case '[':
		return ']'
	case '(':
		return ')'
	case '{':
		return '}'
	}
	return 0
}

// link reports a value that is a link: [text](url), [[page]], <url> or a
// bare URL (a URL's own userinfo and query are screened on their own).
func link(s string) bool {
	line := s
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		line = s[:i]
	}
	switch {
	case strings.HasPrefix(line, "[["):
		return strings.Contains(line, "]]")
	case strings.HasPrefix(line, "["):
		return strings.Contains(line, "](") || strings.Contains(line, "][")
	case strings.HasPrefix(line, "<http"), strings.HasPrefix(line, "http://"), strings.HasPrefix(line, "https://"):
		return !strings.ContainsRune(line[:strings.IndexAny(line+" ", " >")], '@')
	}
	return false
}

// filePath reports a value that names a file (/run/secrets/db,
// ./token.txt, ~/.config/key, C:\keys\a.pem): where a secret is kept, not
// the secret.
func filePath(v string) bool {
	return strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") || strings.HasPrefix(v, "./") ||
		strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/") || Absolute(v)
}

// ordinal reports a list number (1. 2) a.) standing where a value would.
func ordinal(v string) bool {
	if n := len(v); n >= 2 && n <= 3 && (v[n-1] == '.' || v[n-1] == ')') {
		for i := 0; i < n-1; i++ {
			if !isAlnum(v[i]) {
				return false
			}
		}
		return n == 2 || v[0] >= '0' && v[0] <= '9'
	}
	return false
}

// sentence reports a word that starts a sentence rather than giving a
// value: a function word of a language the notes may be in (the, das,
// il, …), a capitalised word followed by one, or a word written only in
// a script other than Latin's (пароль: введите его…); a value with a
// digit, a symbol or mixed case never is.
func sentence(t, v string, b int) bool {
	lv := strings.ToLower(v)
	if proseWords[lv] {
		return true
	}
	ascii, letters := true, true
	for _, r := range v {
		ascii = ascii && r < utf8.RuneSelf
		letters = letters && unicode.IsLetter(r)
	}
	if !letters {
		return false
	}
	if !ascii {
		for _, r := range v {
			if r < utf8.RuneSelf {
				return false
			}
		}
		return true
	}
	c, _ := utf8.DecodeRuneInString(v)
	if !unicode.IsUpper(c) || strings.ToUpper(v) == v && len(v) > 1 {
		return false
	}
	na, nb := valueSpan(t, b)
	next := strings.ToLower(strings.Trim(t[na:nb], "([\"'`*_,.:;!?"))
	return nb > na && proseWords[next]
}

// placeholder reports a value that stands for a credential instead of
// being one, by explicit template syntax only: {{…}}, <…>, […], (…),
// ^…^, ${…}, $VAR, %VAR%, an ellipsis (…, ...), one character repeated
// (xxxx, ***), or a variable's name written in capitals with "_"
// (API_TOKEN, DB_PASSWORD). A literal word is not a placeholder.
func placeholder(v string) bool {
	v = strings.Trim(v, "\"'`")
	if v == "" {
		return true
	}
	if filler(v) {
		return true // 0123456789abcdef0123…: a key's length and alphabet shown
	}
	if strongSecret(v) {
		// Wrapping a key in a placeholder's marks does not make it one:
		// ^x7Gd93kLq2Pz^, %x7Gd93kLq2Pz%, $ecretPassw0rd9.
		return false
	}
	for _, p := range []string{"{}", "<>", "[]", "()", "^^"} {
		if v[0] == p[0] && v[len(v)-1] == p[1] {
			return true
		}
	}
	if emphasised(v) || masked(v) {
		return true
	}
	if v[0] == '$' || v[0] == '%' && v[len(v)-1] == '%' {
		return true
	}
	if strings.Contains(v, "{{") || strings.Contains(v, "...") || strings.Contains(v, "…") {
		// A template or an elision stands for a value only when what is
		// left beside it does too: {{user}}:{{password}}, sk-..., but not
		// {{user}}hunter2hunter2.
		rest := strings.NewReplacer("...", "", "…", "").Replace(templateRef.ReplaceAllString(v, ""))
		return strings.Contains(rest, "{{") || !secretLike(rest)
	}
	if strings.Trim(v, v[:1]) == "" || strings.Contains(strings.ToLower(v), "xxx") {
		return true // xxxx, ****, ----, xxxx-xxxx, xoxb-xxx
	}
	if user, pass, ok := strings.Cut(v, ":"); ok && user != "" && pass != "" {
		// COMBO00:COMBO01, {{user}}:{{password}}: a pair of placeholders.
		return placeholder(user) && placeholder(pass)
	}
	return capsName(v)
}

// capsName reports a variable's name in capitals: parts of capital
// letters and a trailing number joined by "_" (API_TOKEN, DB_PASSWORD_2),
// or one such part with its number (FILE0, PASS1: the numbered slots of
// patator and hydra). One capitalised word without either is a literal:
// ADMIN is a real default password, and a key in capitals and digits is
// a key.
func capsName(v string) bool {
	parts := strings.Split(v, "_")
	numbered := false
	for _, p := range parts {
		i := 0
		for i < len(p) && p[i] >= 'A' && p[i] <= 'Z' {
			i++
		}
		if i == 0 && p != "" || i > 12 || len(p)-i > 3 {
			return false
		}
		for j := i; j < len(p); j++ {
			if p[j] < '0' || p[j] > '9' {
				return false
			}
			numbered = true
		}
	}
	return len(parts) >= 2 || numbered
}

// secretLike reports a run of letters and digits that can be a secret
// left beside a template: eight or more with a digit, or sixteen letters.
// A scheme word (PVEAPIToken={{user}}) is neither.
func secretLike(s string) bool {
	run, digit := 0, false
	for i := 0; i <= len(s); i++ {
		if i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			run++
			digit = digit || s[i] <= '9'
			continue
		}
		if run >= 16 || run >= 8 && digit {
			return true
		}
		run, digit = 0, false
	}
	return false
}

// strongSecret reports a run of ten or more letters and digits that mixes
// upper and lower case and digits, as generated keys and passwords do and
// variable names and placeholder words do not.
func strongSecret(s string) bool {
	run := 0
	var up, low, dig bool
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			c := s[i]
			switch {
			case c >= 'A' && c <= 'Z':
				run, up = run+1, true
				continue
			case c >= 'a' && c <= 'z':
				run, low = run+1, true
				continue
			case c >= '0' && c <= '9':
				run, dig = run+1, true
				continue
			}
		}
		if run >= 10 && up && low && dig {
			return true
		}
		run, up, low, dig = 0, false, false, false
	}
	return false
}

var (
	// safeValues are type-spec words a policy file puts after "token:" and
	// plain settings; neither is a secret.
	safeValues = set("any", "boolean", "bool", "date", "datetime", "float", "integer", "int", "number", "null", "ref",
		"ref-list", "slug", "string", "str", "url", "true", "false", "yes", "no", "on", "off", "none", "nil",
		"required", "optional", "enabled", "disabled", "empty", "unset", "omitted", "hidden", "redacted",
		// Authorization: header: the word names the field, as a type does.
		"header")
	// proseWords are the function words and the imperatives of
	// instructions that start a sentence after a colon, in the languages
	// of the notes measured (see the README): after "password:" they mean
	// prose, not a value. Accents are gone by then (the screen reads NFKD
	// text without marks).
	proseWords = set(
		// English
		"it", "is", "are", "be", "must", "should", "will", "can", "may", "you", "we", "they", "not", "never",
		"always", "see", "use", "in", "on", "at", "or", "if", "as", "by", "from", "that", "which", "one", "do",
		"does", "don't", "set", "enter", "type", "keep", "make", "change", "this", "the", "a", "an", "your",
		"our", "their", "its", "to", "of", "for", "with", "and", "but", "then", "also", "only", "here", "there",
		"what", "how", "when", "where", "who", "why", "add", "create", "click", "select", "choose", "open",
		"remove", "delete", "get", "go", "read", "write", "store", "save", "copy", "paste", "generate", "run",
		// German
		"das", "der", "die", "ist", "sind", "muss", "soll", "wird", "kann", "darf", "sie", "wir", "nicht", "nie",
		"immer", "siehe", "im", "am", "auf", "oder", "wenn", "als", "von", "dass", "ein", "eine", "einen",
		"bitte", "hier", "dein", "ihr", "ihre", "geben",
		// French
		"il", "elle", "est", "sont", "doit", "peut", "vous", "nous", "ne", "pas", "jamais", "toujours", "voir",
		"dans", "sur", "ou", "si", "comme", "par", "de", "que", "un", "une", "le", "la", "les", "votre", "vos",
		"ce", "cette", "entrez", "saisissez",
		// Spanish, Portuguese, Italian
		"el", "los", "las", "es", "son", "debe", "puede", "usted", "tu", "nunca", "siempre", "ver", "en", "o",
		"como", "su", "sus", "este", "esta", "introduzca", "ingrese", "os", "as", "e", "sao", "voce", "nao",
		"sempre", "em", "se", "um", "uma", "seu", "sua", "digite", "insira", "lo", "sono", "deve", "puo",
		"non", "mai", "vedi", "per", "di", "che", "uno", "tuo", "inserisci",
		// Dutch, Scandinavian, Finnish
		"het", "een", "zijn", "moet", "kan", "je", "niet", "nooit", "altijd", "zie", "op", "of", "door",
		"van", "dat", "jouw", "uw", "voer", "det", "ar", "er", "en", "ett", "inte", "aldrig", "alltid", "pa",
		"eller", "om", "som", "av", "att", "din", "ditt", "ange", "skriv", "on", "ei", "ja", "tai", "jos",
		"kuin", "anna",
		// Polish, Czech, Indonesian
		"to", "jest", "sa", "musi", "nie", "nigdy", "zawsze", "w", "na", "lub", "jak", "przez", "z", "ze",
		"twoje", "wpisz", "je", "jsou", "ne", "nikdy", "vzdy", "v", "nebo", "pokud", "jako", "od", "vase",
		"zadejte", "ini", "itu", "adalah", "harus", "bisa", "tidak", "jangan", "selalu", "di", "dan", "atau",
		"jika", "seperti", "oleh", "dari", "yang", "anda", "masukkan",
		// Turkish
		"bu", "bir", "ve", "ile", "icin", "degil", "asla", "her", "girin",
	)
)
