package guard_test

import (
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
)

// The third attack pass (issue 24) found the screen's edges: keys beside
// punctuation and markup, look-alike dashes, passwords on command and
// config lines, default credentials read as placeholders, keys of another
// length than documented. Each test below is a class with the variants an
// attacker would try next; each clean counterpart shows what must stay
// admitted.

const (
	hex    = "0123456789abcdef"
	digits = "0123456789"
)

// families are the keys of every vendor the pass returned, generated.
func families() map[string]string {
	return map[string]string{
		"stripe secret":       "sk_live_" + rnd(30, 24, alnum),
		"stripe restricted":   "rk_live_" + rnd(31, 24, alnum),
		"sendgrid":            "SG." + rnd(32, 22, alnum) + "." + rnd(33, 43, alnum),
		"openai project":      "sk-proj-" + rnd(34, 74, alnum) + "T3BlbkFJ" + rnd(35, 74, alnum),
		"openai short":        "sk-proj-" + rnd(36, 48, alnum),
		"npm":                 "npm_" + rnd(37, 36, alnum),
		"hugging face":        "hf_" + rnd(38, 34, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
		"google":              "AIza" + rnd(39, 35, alnum),
		"digitalocean":        "dop_v1_" + rnd(40, 64, hex),
		"anthropic api03":     "sk-ant-api03-" + rnd(41, 93, alnum) + "AA",
		"anthropic admin01":   "sk-ant-admin01-" + rnd(42, 93, alnum) + "AA",
		"aws access key":      "AKIA" + rnd(43, 16, upper),
		"aws session key":     "ASIA" + rnd(44, 16, upper),
		"slack user":          "xoxp-" + rnd(45, 11, digits) + "-" + rnd(46, 11, digits) + "-" + rnd(47, 12, digits) + "-" + rnd(48, 32, hex),
		"github classic":      "ghp_" + rnd(49, 36, alnum),
		"github fine-grained": "github_pat_" + rnd(50, 22, alnum) + "_" + rnd(51, 59, alnum),
		"gitlab":              "glpat-" + rnd(52, 20, alnum),
	}
}

// TestKeyAmidPunctuation: a key is a key whatever prose punctuation or
// Markdown markup stands around it (issue 24, item 1).
func TestKeyAmidPunctuation(t *testing.T) {
	wraps := []string{
		"the key is %s.", "(%s)", "[%s]", "<%s>", "**%s**", "_%s_", "__%s__", "*%s*", "~~%s~~", "%s, then",
		"%s: done", "%s; next", "%s!", "really %s?", "{%s}", "«%s»", "“%s”", "「%s」", "密钥%s。", "（%s）",
		"[maps](https://maps.example.com/api/js?key=%s&callback=init)", "https://x.example/?token=%s#top",
		"<code>%s</code>", "[%s](https://example.com)", "key=%s&", "'%s'.", "`%s`,", "|%s|", "%s...",
	}
	for name, key := range families() {
		for _, w := range wraps {
			if s := strings.Replace(w, "%s", key, 1); !guard.Credential(s) {
				t.Errorf("%s: not screened in %q", name, s)
			}
		}
	}
}

// TestKeyBlockBehindLongerDashes: a key block whose header has more than
// five dashes before BEGIN ("------BEGIN", as a hand-edited or pasted
// note may) is a key block: the expressions match it at its last five,
// and the header search must get there too (six to nine were missed).
func TestKeyBlockBehindLongerDashes(t *testing.T) {
	body := "MIIEow" + rnd(70, 58, alnum) + "\n" + rnd(71, 64, alnum) + "\n-----END RSA PRIVATE KEY-----\n"
	for n := 5; n <= 16; n++ {
		head := strings.Repeat("-", n) + "BEGIN RSA PRIVATE KEY-----\n"
		// A run of look-alike dashes, or one mixed with "-", reads the same.
		lookAlike := strings.Repeat("\u2014", n-1) + "-" + head[n:]
		for _, s := range []string{head + body, "intro --- text\n" + head + body, "--- a\n" + strings.Repeat("-", n) + "x\n" + head + body,
			lookAlike + body, strings.Repeat("\u2010", n) + head[n:] + body} {
			if !guard.Credential(s) {
				t.Errorf("a key block behind %d dashes was let through: %q", n, s[:min(len(s), 60)])
			}
		}
	}
}

// TestLookAlikeDashes: a key block's fences and a key's prefix read the
// same with any dash a reader takes for "-" (item 2).
func TestLookAlikeDashes(t *testing.T) {
	dashes := []rune{0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212, 0x2E3A, 0x2E3B, 0xFE58, 0xFE63,
		0xFF0D, 0x2043, 0x02D7, 0x2796, 0x2500, 0x2501, 0x058A, 0x05BE, 0x1806, 0x30A0}
	block := "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + rnd(60, 58, alnum) + "\n" + rnd(61, 64, alnum) +
		"\n-----END RSA PRIVATE KEY-----\n"
	keys := []string{"glpat-" + rnd(62, 20, alnum), "sk-ant-api03-" + rnd(63, 93, alnum) + "AA",
		"xoxb-" + rnd(64, 11, digits) + "-" + rnd(65, 12, digits) + "-" + rnd(66, 24, alnum), block}
	for _, d := range dashes {
		if !guard.IsDash(d) {
			t.Errorf("U+%04X is not read as a dash", d)
		}
		for _, k := range keys {
			all := strings.ReplaceAll(k, "-", string(d))
			one := strings.Replace(k, "-", string(d), 1)
			for _, s := range []string{all, one, "Notes:\n\n" + all + "\n"} {
				if !guard.Credential(s) {
					t.Errorf("U+%04X: not screened: %q", d, s)
				}
			}
		}
		if a, b := guard.Skeleton("id"+string(d)+"rsa"), guard.Skeleton("id-rsa"); a != b {
			t.Errorf("U+%04X: skeleton %q, want %q", d, a, b)
		}
	}
	for _, s := range []string{"A long dash — like this — is prose.", "pages 10–12", "−5 °C", "one‐word"} {
		if guard.Credential(s) {
			t.Errorf("prose with dashes screened: %q", s)
		}
	}
}

// TestCommandAndConfigPasswords: a password on a command line or in a
// config line is a credential; the same line with a placeholder is not
// (item 3).
func TestCommandAndConfigPasswords(t *testing.T) {
	pw := rnd(70, 14, alnum)
	lines := []string{
		"mysql -u root -p%s", "mysqldump -uroot -p%s db", "mariadb -p%s", "sshpass -p %s ssh bob@host",
		"sshpass -p%s scp a b", "docker login -u bob -p %s registry.example", "podman login -p %s quay.io",
		"htpasswd -b .htpasswd bob %s", "htpasswd -nb bob %s", "htpasswd -cbB /etc/h bob %s",
		"redis-cli -a %s ping", "ldapsearch -x -D cn=admin -w %s", "sqlcmd -S db -U sa -P %s",
		"unzip -P %s a.zip", "7z x -p%s a.7z", "ipmitool -H h -U admin -P %s power status",
		"smbclient //h/s -U bob%%%s", "plink -pw %s bob@host", "xfreerdp /u:bob /p:%s /v:host",
		"openssl pkcs12 -export -passout pass:%s", "keytool -list -storepass %s", "sqlplus scott/%s@orcl",
		"some-tool --password %s", "some-tool --api-key %s", "some-tool --password=%s", "az login -u bob -p %s",
		"$ sudo mysql -p%s", "`mysql -p%s`",
		"MYSQL_PWD=%s mysql", "PGPASSWORD=%s psql -h db", "export DB_PASS=%s", "machine h.example login bob password %s",
		"machine h.example\n  login bob\n  password %s", "default login anonymous password %s",
		"db.example:5432:app:bob:%s", "*:*:*:bob:%s", "Driver={ODBC};Server=x;Uid=sa;Pwd=%s;", "pass=%s", "pwd=%s",
		"redis://:%s@cache:6379/0", "{user: bob, pass: %s}", "Passwort: %s", "Kennwort = %s", "mot de passe : %s",
		"contraseña: %s", "senha: %s", "wachtwoord: %s", "lösenord: %s", "hasło: %s", "heslo: %s", "jelszó: %s",
		"şifre: %s", "пароль: %s", "κωδικός: %s", "密码：%s", "密碼: %s", "パスワード：%s", "비밀번호: %s",
		"كلمة المرور: %s", "סיסמה: %s", "mật khẩu: %s", "kata sandi: %s", "**Password:** %s",
	}
	for _, l := range lines {
		if s := strings.ReplaceAll(l, "%s", pw); !guard.Credential(strings.ReplaceAll(s, "%%", "%")) {
			t.Errorf("not screened: %q", s)
		}
		for _, ph := range []string{"{{password}}", "<password>", "$PASS", "${PASS}", "%PASS%", "***"} {
			s := strings.ReplaceAll(strings.ReplaceAll(l, "%s", ph), "%%", "%")
			if strings.Contains(l, "://:") && ph == "<password>" {
				continue // <password>@ is not a URL's userinfo
			}
			if guard.Credential(s) {
				t.Errorf("placeholder screened: %q", s)
			}
		}
	}
	for _, s := range []string{
		"`mysql -u {{user}} -p`", "`mysql -u root -p mydb`", "`docker run -p 8080:80 nginx`", "`mkdir -p a/b`",
		"`ssh -p 2222 host`", "`mysql --password mydb`", "`psql --password -d db`",
		"`ansible-playbook --ask-pass site.yml`", "`step ca init --no-password --insecure`",
		"`docker build --secret id=npm,src=$HOME/.npmrc .`", "`openssl rsa -passin env:KEY_PASS`",
		"`openssl rsa -passin file:/run/pass.txt`", "PWD=/home/bob", "pwd = os.getcwd()", "compass: north",
		"bypass: true", "First pass: read all files", "Enter your login and password below.",
		"The default login password is printed on the label.", "`fe80:0:0:0:1`", "12:30:45:00:00",
		"mot de passe : il doit être long", "Passwort: Das Passwort muss lang sein", "пароль: введите его дважды",
		"密码：请输入您的密码",
	} {
		if guard.Credential(s) {
			t.Errorf("screened: %q", s)
		}
	}
}

// TestLiteralWordsAreValues: only template syntax is a placeholder; a
// literal word is the password it says (item 4). A single word in
// capitals is a literal too (ADMIN is a real default); a name in capitals
// joined by "_" or numbered (API_TOKEN, FILE1) is a variable's name.
func TestLiteralWordsAreValues(t *testing.T) {
	for _, s := range []string{
		"https://admin:admin@192.168.1.1/", "https://root:root@10.0.0.1/", "https://admin:changeme@nas.local/",
		"https://user:password@example.test/repository.git", "https://ADMIN:ADMIN@ipmi.local/",
		"ftp://guest:guest@files.local/", "mongodb://admin:test@db:27017", "http://pi:raspberry@10.0.0.5",
		"password: password", "password = changeme", "token: test", "secret: admin", "api_key = your-api-key",
		"PASSWORD=ADMIN", "secret=JBSWY3DPEHPK3PXP", "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&issuer=x",
	} {
		if !guard.Credential(s) {
			t.Errorf("not screened: %q", s)
		}
	}
	for _, s := range []string{
		"https://{{user}}:{{password}}@host/", "https://<user>:<password>@host/", "https://${USER}:${PASS}@host/",
		"https://$USER:$PASS@host/", "https://%USER%:%PASS%@host/", "https://user:***@host/",
		"https://user:…@host/", "https://user:xxxx@host/", "`{{mysql://user:password@host/db}}`",
		"password: {{password}}", "password = <password>", "token: ${TOKEN}", "token: $TOKEN", "secret: %SECRET%",
		"password: ***", "password: …", "password: xxxx", "token: API_TOKEN", "password=FILE1",
		"user_pass=COMBO00:COMBO01",
	} {
		if guard.Credential(s) {
			t.Errorf("placeholder screened: %q", s)
		}
	}
}

// TestVendorPrefixAnyLength: a vendor prefix followed by sixteen or more
// key characters is a key whatever its length or alphabet (item 5).
func TestVendorPrefixAnyLength(t *testing.T) {
	prefixes := []string{"sk-ant-api03-", "sk-ant-admin01-", "github_pat_", "ghp_", "glpat-", "sk_live_", "rk_live_",
		"sk-proj-", "npm_", "hf_", "AIza", "AKIA", "dop_v1_", "xoxb-", "xoxp-", "SG.", "pypi-", "shpat_", "sk-",
		"GOCSPX-", "ya29.", "dckr_pat_", "lin_api_", "whsec_", "sbp_"}
	for i, p := range prefixes {
		for j, n := range []int{16, 17, 23, 40, 78, 95, 150} {
			for k, alphabet := range []string{alnum, hex, alnum + "_-", upper} {
				// A word in capitals after a prefix needs a digit to read
				// as a key (ASIAPACIFICOFFICE is a word).
				key := p + rnd(100+i*100+j*10+k, n-1, alphabet) + "7"
				for _, s := range []string{key, "see " + key + ".", "(" + key + ")"} {
					if !guard.Credential(s) {
						t.Errorf("not screened: %q", s)
					}
				}
			}
		}
	}
	for _, s := range []string{"npm_config_registry", "npm_package_json_version", "hf_hub_download_url",
		"sk-learn-is-a-library", "sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
		"glpat-xxxxxxxxxxxxxxxxxxxx", "ASIAPACIFICREGIONALOFFICE", "sk-proj-...", "task-1234567890abcdef1234",
		"hf_hubDownloadFromRepository"} {
		if guard.Credential(s) {
			t.Errorf("screened: %q", s)
		}
	}
}

// TestSettingsAndCodeAdmitted: a settings table, a type in code and a
// sentence after a colon are not passwords (item 8); a value in the same
// places is still found.
func TestSettingsAndCodeAdmitted(t *testing.T) {
	pw := rnd(80, 14, alnum)
	clean := []string{
		"| Passwords | Button | [[Help#Add a site password|Set a password]] |",
		"| Passwörter | Schaltfläche | [[Hilfe#Ein Passwort hinzufügen|Ein Passwort festlegen]] |",
		"| Setting | Type | Description |\n|---|---|---|\n| API key | [API key](https://example.com/keys) |\n",
		"| Token | String | The token the server issues |", "| password | Text field | Your account password |",
		"```rust\nstruct Config {\n    struct_token: Struct,\n    api_token: Option<String>,\n    secret: Vec<u8>,\n}\n```",
		"```ts\ninterface Auth { token: AuthToken; password: string }\n```", "def login(password: str = None):",
		"this token is a secret: Do not share it", "The password: Set a strong one.",
		"Le mot de passe : Ne le partagez pas", "Das Passwort: Geben Sie es nicht weiter",
		"password = getpass()", "token = os.environ[\"TOKEN\"]", "const auth = new URL(base);",
		"export GOOGLE_APPLICATION_CREDENTIALS=\"/path/to/service-account.json\"", "## Env Auth: 1. Environment Variables",
		"`${MY_API_TOKEN:-default-token}`",
	}
	for _, s := range clean {
		if guard.Credential(s) {
			t.Errorf("screened: %q", s)
		}
	}
	leaks := []string{
		"| password | " + pw + " |", "| password | `" + pw + "` |", "| password | sunflower |",
		"| Password | " + pw + " (old) |", "struct_token: \"" + pw + "\",", "token: " + pw + ",",
		"this token is a secret: " + pw, "password: sunflower", "Le mot de passe : " + pw,
		"password = \"" + pw + "\"", "Pwd=" + pw + ";",
	}
	for _, s := range leaks {
		if !guard.Credential(s) {
			t.Errorf("not screened: %q", s)
		}
	}
}

// TestCodeInDocsAdmitted: the false positives the fiber documentation
// showed (a settings table's Type column, a package's constant, a header
// constant that spells its name, a variable named like a secret, a call in
// a code span), each beside the same shape holding a real secret, which
// is still found.
func TestCodeInDocsAdmitted(t *testing.T) {
	pw := rnd(81, 14, alnum)
	for _, c := range []struct{ clean, leak string }{
		// A table row's cells are read as "name : value": a value cell
		// followed by another cell is not "value:".
		{"| Password | optional | x |", "| Password | " + pw + " | x |"},
		{"| Password | none | yes |", "| Password | sunflower | yes |"},
		// A code span that holds a type, a call or a constant is code.
		{"| ContextPassword | `interface{}` | The key to store the password in Locals. |", "| ContextPassword | `" + pw + "` | x |"},
		{"| Token | `func(c *fiber.Ctx) string` | x |", "| Token | `" + pw + "` | x |"},
		{"| Token | `map[string]string` | x |", "| Token | `hunter2` | x |"},
		{"| Secret | `*tls.Config` | x |", "| Secret | `*" + pw + "` | x |"},
		{"| Basic Auth | `a.BasicAuth(user, pass)` | Via Header (Base64) |", "| Basic Auth | `" + pw + "` | Via Header |"},
		{"password: `[]byte`", "password: `" + pw + "`"},
		// A package's exported constant before code's punctuation.
		{"\tClientAuth: tls.RequireAndVerifyClientCert,\n", "\tClientAuth: hunter2.Secret,\n"},
		{"auth = http.DefaultAuth;", "auth = " + pw + ";"},
		// A constant whose value spells its name's last parts.
		{"\tHeaderAccessControlAllowCredentials   = \"Access-Control-Allow-Credentials\"\n", "\tHeaderAccessControlAllowCredentials = \"" + pw + "\"\n"},
		{"X_AUTH_TOKEN = \"x-auth-token\"", "X_AUTH_TOKEN = \"x-auth-" + pw + "\""},
		// A variable or a field named like the secret.
		{"    'X-Csrf-Token': csrfToken\n", "    'X-Csrf-Token': csrfToken9F8a7Kq2\n"},
		{"\"password\": dbPassword,", "\"password\": dbPassword9,"},
		{"login(token: authToken);", "login(token: " + pw + ");"},
	} {
		if guard.Credential(c.clean) {
			t.Errorf("screened: %q", c.clean)
		}
		if !guard.Credential(c.leak) {
			t.Errorf("not screened: %q", c.leak)
		}
	}
	// A lone literal word stays the password it says.
	for _, s := range []string{"password: password", "HeaderAuthorization = \"Authorization\"", "pass = \"pass-word\"",
		"{user: bob, pass: my.password}", "password: DBPassword", "{user: bob, pass: adminPassword}",
		"{user: bob, pass: adminPassword, host: db}", "password: req.body.password,",
		"{user: bob, pass: Hunter.Secret, host: db}"} {
		if !guard.Credential(s) {
			t.Errorf("not screened: %q", s)
		}
	}
}
