package guard

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Code, not values: what stands after a secret's name in a listing is a
// type, a constant, a call or a variable far more often than a secret. A
// generated key is never taken for one of them (strongSecret), and a
// literal word stays a value: these read code's own syntax.

// typeName reports a type or a constant in a declaration: a capitalised
// identifier, one with type syntax (Option<String>, Vec<u8>, &str, []byte,
// a::B) or a package's exported name (tls.RequireAndVerifyClientCert)
// right before ",", ";", ")", "{", ">" or "=" (struct_token: Struct,), or a
// primitive type's name.
func typeName(t string, a, b int, raw string) bool {
	v := strings.TrimRight(raw, ",;")
	if primitives[strings.TrimLeft(v, "&*[]")] {
		return true
	}
	qualified := qualifiedName(v)
	if v == "" || !identLike(v) && !qualified || strongSecret(v) || randomCase(strings.Trim(v, "&*[]<>:'")) && !qualified {
		// A generated key before ";" (Pwd=Xk9…;) is not a type.
		return false
	}
	after := byte('\n')
	for i := b; i < len(t) && i < b+maxValue; i++ {
		if t[i] != ' ' && t[i] != '\t' {
			after = t[i]
			break
		}
	}
	if len(raw) > len(v) {
		after = raw[len(v)]
	}
	c, _ := utf8.DecodeRuneInString(strings.TrimLeft(v, "&*[]"))
	generic := strings.ContainsAny(v, "<:[")
	return (unicode.IsUpper(c) || generic || qualified) && strings.IndexByte(",;){>=", after) >= 0
}

// identLike reports a type expression's characters: letters, digits, "_",
// and & * [ ] < > : , and "'" of references, generics and paths.
func identLike(v string) bool {
	letter := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || strings.IndexByte("_&*[]<>:'", c) >= 0:
		default:
			return false
		}
	}
	return letter
}

var primitives = set("str", "string", "bool", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32",
	"u64", "u128", "usize", "f32", "f64", "char", "byte", "bytes", "rune", "uint", "int8", "int16", "int32",
	"int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "void", "object", "unknown", "never",
	"undefined", "option<string>", "vec<u8>", "secretstring", "secret<string>")

// codeWords start an expression in code: const auth = new URL(…),
// token = await fetchToken(), secret = lambda: ….
var codeWords = set("new", "await", "function", "lambda", "require", "import", "fn", "func", "def", "yield",
	"typeof", "sizeof", "make", "&mut", "mut")

// call reports code that computes a value: a call or an index after an
// identifier (getpass(), os.environ["X"], env("TOKEN")).
func call(v string) bool {
	i := strings.IndexAny(v, "([")
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		if c := v[j]; !isAlnum(c) && c != '_' && c != '.' && c != '$' {
			return false
		}
	}
	return true
}

// codeSpan reports a value written as a code span (`…`) that holds code:
// a type (`interface{}`, `[]byte`, `map[string]string`, `func(c *Ctx)
// error`, `*tls.Config`), a call (`a.BasicAuth(user, pass)`) or a
// qualified constant. A settings table's Type column is written so; a
// secret in a code span (`hunter2`) is none of them.
func codeSpan(t string, a int) bool {
	if a >= len(t) || t[a] != '`' {
		return false
	}
	rest := t[a+1 : min(len(t), a+maxValue)]
	k := strings.IndexByte(rest, '`')
	if k <= 0 || strings.IndexByte(rest[:k], '\n') >= 0 {
		return false
	}
	s := strings.TrimSpace(rest[:k])
	if strongSecret(s) {
		return false
	}
	if primitives[strings.ToLower(strings.TrimLeft(s, "&*[]"))] || safeValues[strings.ToLower(s)] {
		return true
	}
	for _, p := range typeStarts {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return call(s) && strings.HasSuffix(s, ")") || qualifiedName(strings.TrimLeft(s, "*&"))
}

// typeStarts begin a type expression in Go, Rust and TypeScript.
var typeStarts = []string{"func(", "func (", "map[", "[]", "chan ", "<-chan ", "interface{", "struct{", "fn(",
	"Fn(", "FnMut(", "impl ", "dyn ", "&mut ", "Box<", "Option<", "Vec<", "Result<", "Promise<", "Record<",
	"Array<", "Map<", "Set<"}

// qualifiedName reports a package's exported name: identifiers joined by
// "." with no digit, the first in lower case and the last starting with a
// capital (tls.RequireAndVerifyClientCert, fiber.Handler). hunter2.Secret
// and Hunter.Secret are not.
func qualifiedName(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || !(p[0] == '_' || isASCIILetter(rune(p[0]))) {
			return false
		}
		for i := 0; i < len(p); i++ {
			if c := p[i]; !(c == '_' || isASCIILetter(rune(c))) {
				return false
			}
		}
	}
	pkg, last := parts[0], parts[len(parts)-1]
	return strings.ToLower(pkg) == pkg && last[0] >= 'A' && last[0] <= 'Z'
}

// secretVariable reports an unquoted value t[a:b] that names a variable
// holding the secret rather than being it: an identifier in lower camel or
// snake case of two or more parts, with no digit, whose last part is a
// secret's name (csrfToken, dbPassword, api_key), where only code puts a
// bare word: after a quoted name ('X-Csrf-Token': csrfToken, as JSON
// would quote a string) or before ";" or ")". After a bare name it may be
// YAML's literal ({user: bob, pass: adminPassword}), a value. A lone word
// (password: password) is a value everywhere.
func secretVariable(t string, end, a, b int) bool {
	v := t[a:b]
	if v == "" || !(v[0] >= 'a' && v[0] <= 'z' || v[0] == '_') || randomCase(v) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isASCIILetter(rune(c)) && c != '_' {
			return false
		}
	}
	if !secretName(v, len(v)) || len(nameParts(v)) < 2 {
		return false
	}
	quotedName := end < len(t) && (t[end] == '"' || t[end] == '\'')
	return quotedName || b < len(t) && (t[b] == ';' || t[b] == ')')
}

// spellsName reports a value that spells the last two or more parts of
// the name it is given to, whatever their case and separators: a
// constant for a header or a field's name
// (HeaderAccessControlAllowCredentials = "Access-Control-Allow-Credentials",
// X_AUTH_TOKEN = "x-auth-token"), not a secret. A value of one word
// (password: password) is the literal it says.
func spellsName(name, value string) bool {
	vp, np := nameParts(strings.Trim(value, "\"'`")), nameParts(name)
	if len(vp) < 2 || len(vp) > len(np) {
		return false
	}
	np = np[len(np)-len(vp):]
	for i := range vp {
		if !strings.EqualFold(vp[i], np[i]) {
			return false
		}
	}
	return true
}

// nameParts splits an identifier or a label at "_", "-", ".", spaces and
// lower-to-upper case changes: HeaderAccessControl is Header, Access,
// Control. Nil when it holds another character.
func nameParts(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			c := s[i]
			if !isNameByte(c) && c != ' ' {
				return nil
			}
			if !(c == '_' || c == '-' || c == '.' || c == ' ') && !(i > start && c >= 'A' && c <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z') {
				continue
			}
		}
		if i > start {
			out = append(out, s[start:i])
		}
		start = i
		if i < len(s) && !(s[i] >= 'A' && s[i] <= 'Z') {
			start = i + 1
		}
	}
	return out
}
