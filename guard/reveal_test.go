package guard_test

import (
	"encoding/base64"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
)

func gen(seed int64, n int) string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := rand.New(rand.NewSource(seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[r.Intn(len(alnum))]
	}
	return string(b)
}

// The second attack pass wrote keys so that a reader still reads them
// while the raw bytes differ: encoded, broken by markup, split over lines
// with something at the break, in a table row, or beside a template. Each
// must be screened; each clean look-alike must not.
func TestObfuscatedCredentials(t *testing.T) {
	ghp := "ghp_" + gen(1, 36)
	aws := "AKIA" + strings.ToUpper(gen(2, 16))
	pw := gen(3, 20)
	hex := func(s string) string {
		var b strings.Builder
		for _, c := range []byte(s) {
			fmt.Fprintf(&b, `\x%02x`, c)
		}
		return b.String()
	}
	leaks := map[string]string{
		"yaml hex escapes":     `title: "` + hex(ghp[:4]) + ghp[4:] + `"`,
		"yaml unicode escape":  `title: "\u0067hp_` + ghp[4:] + `"`,
		"yaml continued quote": "title: \"" + ghp[:10] + "\\\n  " + ghp[10:] + "\"",
		"yaml folded scalar":   "title: >-\n  " + ghp[:10] + "\n  " + ghp[10:] + "\n",
		"yaml quoted fold":     "title: '" + ghp[:8] + "\n\n  " + ghp[8:] + "'",
		"markdown escape":      "# " + ghp[:3] + `\_` + ghp[4:],
		"decimal reference":    "# " + ghp[:3] + "&#95;" + ghp[4:],
		"hex reference":        "gh&#x70;_" + ghp[4:],
		"percent escape":       "see " + ghp[:3] + "%5F" + ghp[4:] + " here",
		"emphasis in the word": "# " + ghp[:3] + "*_*" + ghp[4:],
		"code spans":           "# `" + ghp[:5] + "``" + ghp[5:] + "`",
		"html comment":         ghp[:5] + "<!-- x -->" + ghp[5:],
		"html tags":            ghp[:6] + "<b></b>" + ghp[6:],
		"backtick then a tag":  ghp[:6] + "`<b>" + ghp[6:],
		"stars then a tag":     ghp[:6] + "**<i></i>" + ghp[6:],
		"cyrillic letter":      "gһp_" + ghp[4:],
		"no-break space":       ghp[:8] + "\u00a0" + ghp[8:],
		"hard break":           "words\n" + aws[:8] + "  \n" + aws[8:] + "\n",
		"table cells":          "| a |\n|---|\n| " + aws[:8] + " |\n| " + aws[8:] + " |\n",
		"list continuation":    "- " + ghp[:10] + "\n  " + ghp[10:] + "\n",
		"blockquote":           "> xoxb-" + gen(4, 6) + "\n> " + "123456-" + gen(5, 24) + "\n",
		"three lines":          "text\n" + ghp[:8] + "\n" + ghp[8:20] + "\n" + ghp[20:] + "\n",
		"glpat over lines":     "text\nglpat-" + gen(6, 4) + "\n" + gen(7, 16) + "\n",
		"private key header":   "-----BEGIN RSA PRIVATE\nKEY-----\nMII" + gen(8, 40) + "\n",
		"table assignment":     "| key | value |\n|---|---|\n| password | " + pw + " |\n",
		"template then secret": "password = {{user}}" + pw,
		"elided then secret":   "password: " + pw + "...",
		"template in userinfo": "https://{{user}}:" + pw + "@example.com/x",
		"angle user in scp":    "<user>:" + pw + "@host.example:repo.git",
		"after a placeholder":  "token: <your-token> " + ghp,
		"dollar-led password":  "password = $ecretPassw0rd9",
		"caret-wrapped key":    "token = ^x7Gd93kLq2Pz^",
		"percent-wrapped key":  "password = %x7Gd93kLq2Pz%",
		"template-wrapped key": "password = {{x7Gd93kLq2Pz}}",
	}
	for name, s := range leaks {
		if !guard.Credential(s) {
			t.Errorf("%s: not screened: %q", name, s)
		}
	}
	clean := []string{
		"**bold** and `code` and <b>tags</b> &amp; 100%20 of it",
		"| key | value |\n|---|---|\n| password | required |\n| token | string |\n",
		"| Setting | Meaning |\n|---|---|\n| password | Your account password |\n",
		"`qm remote-migrate 'apitoken=PVEAPIToken={{user}}@{{realm}}!{{token}}={{secret}},host={{address}}'`",
		"`curl -u {{username}}:{{password}} {{https://example.com}}`",
		"password: sk-...\n",
		"A list\n- item one\n  goes on\n- item two\n",
		"Base64 is not decoded: " + base64.StdEncoding.EncodeToString([]byte("hello world, nothing here")),
	}
	for _, s := range clean {
		if guard.Credential(s) {
			t.Errorf("clean text screened: %q", s)
		}
	}
}

// A folder name ending in a mark is a relative path, not the start of a
// machine path; one written after a space, an opening mark, an operator
// or a link's URI is.
func TestMachinePathAfterAFolderName(t *testing.T) {
	for _, s := range []string{"Archive (2023)/n.md", "C++/notes.md", "Why?/x.md", "Q&A!/x.md", "v1.0./x.md", "ratio 1/2"} {
		if guard.MachinePath(s) {
			t.Errorf("MachinePath(%q) = true", s)
		}
	}
	for _, s := range []string{"see (/etc/passwd)", "[docs](https://x.test/a)/usr/local/x", "PATH=/usr/bin:/usr/local/bin",
		"| /etc/hosts |", "notes:/n.md", "x,/etc/hosts", "*/etc/hosts"} {
		if !guard.MachinePath(s) {
			t.Errorf("MachinePath(%q) = false", s)
		}
	}
}

// A key split over lines is joined up to the paragraph's end, not into
// the paragraph after it.
func TestSplitKeyBeforeAParagraph(t *testing.T) {
	aws := "AKIA" + strings.ToUpper(gen(9, 16))
	if s := "text\n\n" + aws[:8] + "  \n" + aws[8:] + "\n\nMore words after it.\n"; !guard.Credential(s) {
		t.Errorf("not screened: %q", s)
	}
}

// A key broken by a run of "*" or "`" and a tag or comment right after it
// is read whole, alone on its line or with other markup in the text (a
// "*." elsewhere once decided whether it was).
func TestKeyBrokenByRunAndTag(t *testing.T) {
	for _, key := range []string{"AKIAQWERTYUI*<b>OPZSDFGH", "AKIAQWERTYUI`<i>OPZSDFGH", "AKIAQWERTYUI**<!-- x -->OPZSDFGH",
		"AKIAQWERTYUI*<b>*OPZSDFGH", "AKIAQWERTYUI*</b>OPZSDFGH"} {
		for _, s := range []string{key, "a*.b " + key, "note\r\n" + key + "\r\n", "| k | " + key + " |"} {
			if !guard.Credential(s) {
				t.Errorf("%q was not screened out", s)
			}
		}
	}
	for _, s := range []string{"a *<b>bold</b>* word", "x*<br>", "`code`<br>"} {
		if guard.Credential(s) {
			t.Errorf("%q was screened out", s)
		}
	}
}
