package guard

import (
	"path"
	"strings"
)

// Passwords on command lines: a flag that takes a password, of a command
// known to read one there (mysql -pSECRET, sshpass -p SECRET, docker
// login -p SECRET, htpasswd -b file user SECRET, smbclient -U user%SECRET,
// openssl -passin pass:SECRET, …), and any long flag named like a secret
// (--password SECRET, --api-key SECRET). The value is judged as an
// assignment's is: a placeholder ({{password}}, $PASS, <password>) is not
// a password.

// passFlag is how one command takes a password: after flag, attached to
// it (-pSECRET) and/or as the next word (-p SECRET); sub is a subcommand
// that must come first (docker login).
type passFlag struct {
	flag             string
	attached, spaced bool
	sub              string
}

var commandFlags = func() map[string][]passFlag {
	m := map[string][]passFlag{}
	add := func(cmds string, fs ...passFlag) {
		for _, c := range strings.Fields(cmds) {
			m[c] = append(m[c], fs...)
		}
	}
	attached := func(f string) passFlag { return passFlag{flag: f, attached: true} }
	spaced := func(f string) passFlag { return passFlag{flag: f, spaced: true} }
	both := func(f string) passFlag { return passFlag{flag: f, attached: true, spaced: true} }
	// mysql -p alone prompts, and the next word is the database.
	add("mysql mysqldump mysqladmin mysqlimport mysqlcheck mysqlshow mysqlpump mysqlbinlog mysqlsh mariadb "+
		"mariadb-dump mariadb-admin mariadb-import mariadb-check mycli", attached("-p"))
	add("sshpass", both("-p"))
	for _, c := range strings.Fields("docker podman nerdctl buildah skopeo helm oras crane regctl") {
		add(c, passFlag{flag: "-p", attached: true, spaced: true, sub: "login"})
	}
	add("az", passFlag{flag: "-p", spaced: true, sub: "login"})
	add("redis-cli", both("-a"))
	add("ldapsearch ldapadd ldapmodify ldapdelete ldapwhoami ldappasswd ldapcompare ldapmodrdn ldapexop", spaced("-w"))
	add("sqlcmd bcp osql", both("-P"))
	add("zip unzip zipcloak", spaced("-P"))
	add("7z 7za 7zr rar unrar", attached("-p"))
	add("ipmitool", spaced("-P"))
	add("mongo mongosh mongodump mongorestore mongoexport mongoimport mongostat mongotop mongofiles", spaced("-p"))
	add("smbclient rpcclient smbget smbcacls smbmap", spaced("-U"))
	add("plink pscp psftp", spaced("-pw"))
	add("rdesktop evil-winrm crackmapexec nxc netexec psexec psexec.py wmiexec.py smbexec.py hydra medusa", spaced("-p"))
	add("xfreerdp xfreerdp3 wlfreerdp sdl-freerdp", attached("/p:"))
	add("openssl", spaced("-passin"), spaced("-passout"), spaced("-pass"), spaced("-password"), spaced("-k"))
	add("keytool", spaced("-storepass"), spaced("-keypass"), spaced("-srcstorepass"), spaced("-deststorepass"),
		spaced("-srckeypass"), spaced("-destkeypass"))
	add("snmpwalk snmpget snmpset snmpbulkwalk snmpbulkget snmptrap", spaced("-A"), spaced("-X"))
	add("lftp", spaced("-u"))
	return m
}()

// commandFinds reports a password given on a command line. Only lines
// with a flag a table entry or the long-flag rule can name are read, each
// once.
func commandFinds(t string) bool {
	done := 0
	for i := nextByte(t, 0, '-'); i < len(t); i = nextByte(t, i+1, '-') {
		if i < done || i > 0 && !isSpaceByte(t[i-1]) && strings.IndexByte("`\"'(", t[i-1]) < 0 || !flagStart(t, i) {
			continue
		}
		a := strings.LastIndexByte(t[:i], '\n') + 1
		done = nextByte(t, i, '\n')
		if commandLine(t[a:done]) {
			return true
		}
	}
	return false
}

// commandLineAt reads the line around t[i] as a command line: the few
// commands that take a password without a dash flag are found from
// elsewhere (xfreerdp's /p: from the operator scan, sqlplus's
// user/password@db from the "@" one), so no extra pass reads every text
// for their names.
func commandLineAt(t string, i int) bool {
	a := strings.LastIndexByte(t[:i], '\n') + 1
	return commandLine(t[a:nextByte(t, i, '\n')])
}

// flagStart reports a flag at t[i] that may take a password: one a table
// entry names, or a long one (a secret's name decides later).
func flagStart(t string, i int) bool {
	j := i + 1
	for j < len(t) && j-i < 16 && (isNameByte(t[j])) {
		j++
	}
	f := t[i:j]
	switch f {
	case "-p", "-P", "-a", "-w", "-U", "-u", "-k", "-A", "-X", "-b", "-pw", "-storepass", "-keypass",
		"-srcstorepass", "-deststorepass", "-srckeypass", "-destkeypass", "-passin", "-passout", "-pass", "-password":
		return true
	}
	if name := strings.TrimLeft(f, "-"); len(f) >= 4 && secretName(name, len(name)) {
		return true // --password, --api-key
	}
	// -pSECRET, -bc, -nb: short flags run together.
	return len(f) >= 2 && strings.ContainsAny(f[1:], "pPb")
}

// commandLine reads one line as shell words and reports a password in
// them.
func commandLine(line string) bool {
	words := shellWords(line)
	cmd, sub := "", false
	for k := 0; k < len(words); k++ {
		w := words[k]
		switch w {
		case "|", "||", "&&", ";", "&":
			cmd, sub = "", false
			continue
		}
		switch base := path.Base(w); {
		case base == "htpasswd":
			if htpasswdFinds(words[k:]) {
				return true
			}
			continue
		case base == "sqlplus":
			for j := k + 1; j < len(words); j++ {
				if !strings.HasPrefix(words[j], "-") {
					if sqlplusLogin(words[j]) {
						return true
					}
					break
				}
			}
			continue
		case commandFlags[base] != nil && !strings.HasPrefix(w, "-"):
			cmd, sub = base, false
			continue
		}
		next := ""
		if k+1 < len(words) {
			next = words[k+1]
		}
		for _, f := range commandFlags[cmd] {
			if f.sub != "" && !sub {
				if w == f.sub {
					sub = true
				}
				continue
			}
			if f.spaced && w == f.flag && flagValue(cmd, f.flag, next) ||
				f.attached && len(w) > len(f.flag) && strings.HasPrefix(w, f.flag) && flagValue(cmd, f.flag, strings.TrimPrefix(w[len(f.flag):], "=")) {
				return true
			}
		}
		if strings.HasPrefix(w, "-") && len(w) >= 4 {
			if v, eq, ok := longFlag(w, next); ok && flagValue("", "", v) && (eq || secretWord(v)) {
				return true
			}
		}
	}
	return false
}

// longFlag reads --name VALUE, --name=VALUE and -name VALUE where the name
// is a secret's (--password, --api-key, -storepass), and gives the value
// and whether it was given with "=". Switches named like one (--no-password,
// --ask-pass, --prompt-password) take none.
func longFlag(w, next string) (v string, eq, ok bool) {
	name, v, eq := strings.Cut(strings.TrimLeft(w, "-"), "=")
	if !eq {
		v = next
	}
	for _, p := range []string{"no-", "ask-", "prompt"} {
		// --rc-no-auth, --sftp-ask-password: a prefixed switch too.
		if strings.HasPrefix(name, p) || strings.Contains(name, "-"+p) {
			return "", false, false
		}
	}
	if name == "" || !secretName(name, len(name)) {
		return "", false, false
	}
	return v, eq, true
}

// secretWord reports a word that reads as a password rather than an
// argument: letters with digits or with symbols, or a generated key.
// mysql --password mydb and psql --password (both prompt) leave a
// database's name after the flag.
func secretWord(v string) bool {
	v = strings.Trim(v, "\"'`")
	var letter, digit, symbol bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			letter = true
		case strings.IndexByte("._-/:", c) < 0:
			symbol = true
		}
	}
	return len(v) >= 6 && letter && (digit || symbol)
}

// flagValue reports a word given to a password flag that is a password:
// not another flag, not a placeholder, a setting or a reference to one
// kept elsewhere (openssl's env:, file:, fd:, stdin), not a path.
func flagValue(cmd, flag, v string) bool {
	v = strings.Trim(v, "\"'`")
	switch {
	case cmd == "openssl" && flag != "-k":
		var ok bool
		if v, ok = strings.CutPrefix(v, "pass:"); !ok {
			return false
		}
	case cmd == "smbclient" || cmd == "rpcclient" || cmd == "smbget" || cmd == "smbcacls" || cmd == "smbmap":
		var ok bool
		if _, v, ok = strings.Cut(v, "%"); !ok {
			return false
		}
	case cmd == "lftp":
		var ok bool
		if _, v, ok = strings.Cut(v, ","); !ok {
			return false
		}
	}
	if v == "" || v[0] == '-' || v[0] == '/' || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "~/") ||
		strings.HasPrefix(v, "../") || strings.Contains(v, "{{") {
		return false
	}
	if strings.HasPrefix(v, "](") || (v[0] == '<' || v[0] == '[') && strings.IndexByte(v, closer(v[0])) < 0 && !strongSecret(v) {
		// [`--token`](#token): the flag is a link's text. --rc-pass
		// <random password>: a bracketed placeholder the words split
		// (or a shell redirection), not a value.
		return false
	}
	if i := strings.IndexByte(v, '='); i > 0 && identLike(v[:i]) && cmd == "" {
		// --secret id=x,src=y: a specification, not a secret.
		return false
	}
	lv := strings.ToLower(v)
	return !safeValues[lv] && !placeholder(v)
}

// htpasswdFinds reads htpasswd's words: with -b the password is the last
// positional argument (file user password, or user password with -n).
func htpasswdFinds(words []string) bool {
	batch, noFile := false, false
	var pos []string
	for k := 1; k < len(words); k++ {
		w := words[k]
		switch {
		case w == "|" || w == ";" || w == "&&":
			k = len(words)
		case strings.HasPrefix(w, "-") && len(w) > 1:
			batch = batch || strings.Contains(w, "b")
			noFile = noFile || strings.Contains(w, "n")
			if w == "-C" || w == "-r" {
				k++
			}
		default:
			pos = append(pos, w)
		}
	}
	want := 2
	if noFile {
		want = 1
	}
	return batch && len(pos) > want && flagValue("", "", pos[want])
}

// sqlplusFinds reads the lines that may run sqlplus with its login
// user/password@database: those with an "@" whose word holds a "/" before
// it. It is called only for text with an "@", and reads each such line
// once, so no pass looks for the command's name in every text.
func sqlplusFinds(t string) bool {
	done := 0
	for i := nextByte(t, 0, '@'); i < len(t); i = nextByte(t, i+1, '@') {
		if i < done {
			continue
		}
		a := i
		for a > 0 && !isSpaceByte(t[a-1]) && i-a < maxValue {
			a--
		}
		if strings.IndexByte(t[a:i], '/') < 0 {
			continue
		}
		start := strings.LastIndexByte(t[:a], '\n') + 1
		done = nextByte(t, i, '\n')
		if strings.Contains(t[start:done], "sqlplus") && commandLine(t[start:done]) {
			return true
		}
	}
	return false
}

// sqlplusLogin reads sqlplus's user/password[@db].
func sqlplusLogin(w string) bool {
	user, rest, ok := strings.Cut(w, "/")
	if !ok || user == "" || strings.ContainsAny(user, "@:") {
		return false
	}
	pw, _, _ := strings.Cut(rest, "@")
	return flagValue("", "", pw)
}

// shellWords splits a line into words the way a shell would, roughly:
// quotes keep spaces, and ; | & stand alone. Backticks of a code span end
// words.
func shellWords(line string) []string {
	var out []string
	var b strings.Builder
	quote := byte(0)
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ' ' || c == '\t' || c == '\r' || c == '`':
			flush()
		case c == '|' || c == ';' || c == '&':
			flush()
			op := string(c)
			if i+1 < len(line) && line[i+1] == c {
				op += string(c)
				i++
			}
			out = append(out, op)
		default:
			b.WriteByte(c)
		}
	}
	flush()
	return out
}
