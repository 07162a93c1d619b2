package guard

import "strings"

// Config lines that hold a password without a "name = value" shape: a
// .netrc entry (machine HOST login USER password SECRET, on one line or
// several) and a .pgpass line (host:port:database:user:SECRET).

// netrcAt reports a .netrc password in the word t[a:e], the last of its
// line: the words before it are "password", and before that "login" and
// a name (on the line or the line above), and "machine" or "default"
// stands as a word in the 200 bytes before them (an entry starts with
// one). The line scan of the second view reads each line's last word, so
// the class costs no pass of its own.
func netrcAt(t string, a, e int) bool {
	j := skipBack(t, a, isSpaceByte)
	if j < 8 || t[j-8:j] != "password" || j > 8 && !isSpaceByte(t[j-9]) {
		return false
	}
	k := skipBack(t, j-8, isSpaceByte)
	k = skipBack(t, k, func(c byte) bool { return !isSpaceByte(c) })
	k = skipBack(t, k, isSpaceByte)
	if k < 5 || t[k-5:k] != "login" || k > 5 && !isSpaceByte(t[k-6]) {
		return false
	}
	before := t[max(0, k-200):k]
	if !hasWord(before, "machine") && !hasWord(before, "default") {
		return false
	}
	return isValue(t, a, e)
}

// skipBack moves from i back over at most 128 bytes that in accepts.
func skipBack(t string, i int, in func(byte) bool) int {
	for n := 0; i > 0 && in(t[i-1]) && n < 128; n++ {
		i--
	}
	return i
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

// pgpassAt reads the word around the colon at t[i] as a .pgpass line: it
// is one when it has exactly four colons, its port is a number or "*",
// its host, database and user are names or "*" (not the hex groups of an
// IPv6 address), and its password is a value. It gives the word's end, so
// the operator scan reads each word once.
func pgpassAt(t string, i int) (end int, found bool) {
	a, b := i, i
	for a > 0 && !isSpaceByte(t[a-1]) && t[a-1] != '`' {
		a--
	}
	for b < len(t) && !isSpaceByte(t[b]) && t[b] != '`' {
		b++
	}
	return b, pgpassLine(t[a:b])
}

func pgpassLine(w string) bool {
	if strings.Count(w, ":") != 4 {
		return false
	}
	f := strings.Split(w, ":")
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
