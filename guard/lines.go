package guard

import "strings"

// Config lines that hold a password without a "name = value" shape: a
// .netrc entry (machine HOST login USER password SECRET, on one line or
// several) and a .pgpass line (host:port:database:user:SECRET).

// configLineFinds reports a password in a .netrc entry or a .pgpass line.
func configLineFinds(t string) bool {
	return netrcFinds(t) || pgpassFinds(t)
}

// netrcFinds looks at each "password" word followed by a value: it is a
// .netrc password when the two words before it are "login" and a name
// (on its line or the line above) and "machine" or "default" stands as a
// word in the 200 bytes before them (an entry starts with one), and the
// value is one.
func netrcFinds(t string) bool {
	for i := nextIndex(t, 0, "password"); i < len(t); i = nextIndex(t, i+8, "password") {
		if i > 0 && !isSpaceByte(t[i-1]) || i+9 > len(t) || (t[i+8] != ' ' && t[i+8] != '\t') {
			continue
		}
		before := t[max(0, i-200):i]
		words := strings.Fields(before)
		if len(words) < 3 || words[len(words)-2] != "login" {
			continue
		}
		if !hasWord(before, "machine") && !hasWord(before, "default") {
			continue
		}
		a, b := valueSpan(t, i+8)
		if b > a && isValue(t, a, b) {
			return true
		}
	}
	return false
}

// hasWord reports w as a whole word (between spaces or the ends) in s.
func hasWord(s, w string) bool {
	for i := strings.Index(s, w); i >= 0; {
		end := i + len(w)
		if (i == 0 || isSpaceByte(s[i-1])) && (end == len(s) || isSpaceByte(s[end])) {
			return true
		}
		j := strings.Index(s[i+1:], w)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// pgpassFinds looks at each word with exactly four colons: it is a
// .pgpass line when its port is a number or "*", its host, database and
// user are names or "*" (not the hex groups of an IPv6 address), and its
// password is a value. Each word is read once.
func pgpassFinds(t string) bool {
	done := 0
	for i := nextByte(t, 0, ':'); i < len(t); i = nextByte(t, i+1, ':') {
		if i < done {
			continue
		}
		a, b := i, i
		for a > 0 && !isSpaceByte(t[a-1]) && t[a-1] != '`' {
			a--
		}
		for b < len(t) && !isSpaceByte(t[b]) && t[b] != '`' {
			b++
		}
		done = b
		if pgpassLine(t[a:b]) {
			return true
		}
	}
	return false
}

func pgpassLine(w string) bool {
	f := strings.Split(w, ":")
	if len(f) != 5 {
		return false
	}
	for _, x := range f {
		if x == "" {
			return false
		}
	}
	if f[1] != "*" && strings.Trim(f[1], "0123456789") != "" {
		return false
	}
	named := 0
	for _, x := range []string{f[0], f[2], f[3]} {
		if x == "*" || strings.ContainsAny(x, "ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ_.") {
			named++
		}
	}
	return named == 3 && f[4] != "*" && !placeholder(f[4]) && !strings.Contains(w, "://")
}
