// Package attack is the leak corpus the privacy tests run through every
// output (the producers, the CLI, MCP): notes that hold a credential of
// each class the screen knows, files and folders whose names are
// credentials or look-alikes of secret names, and one clean note. No
// value in it is a real secret; each is generated from a fixed seed.
package attack

import (
	"fmt"
	"math/rand"
	"strings"
)

// Clean is the one note every query for Words must return.
const Clean = "notes/clean-note.md"

// Words are in every note, so a query for them touches the whole corpus.
const Words = "zebra quokka"

// Corpus is the attack workspace's files (relative path to content) and
// the markers none of which may appear in any output.
func Corpus() (files map[string]string, markers []string) {
	files = map[string]string{Clean: "# Clean note\n\n" + Words + " live here in peace.\n"}
	for i, s := range contentSecrets() {
		rel := fmt.Sprintf("notes/leak-%02d.md", i)
		files[rel] = fmt.Sprintf("---\nstatus: draft\n---\n# Leak %d\n\n%s in the text.\n\n%s\n\nMore words after it.\n", i, Words, s)
		markers = append(markers, marker(s))
		// The same secret as a frontmatter value, and split over lines.
		files[fmt.Sprintf("notes/fm-%02d.md", i)] = fmt.Sprintf("---\nsummary: %q\n---\n# Front %d\n\n%s\n", s, i, Words)
	}
	for i, name := range credentialNames() {
		files["notes/"+name+".md"] = fmt.Sprintf("# Named %d\n\n%s\n", i, Words)
		files["notes/deep/er/"+name+"/index.md"] = fmt.Sprintf("# Folder %d\n\n%s\n", i, Words)
		markers = append(markers, marker(name))
	}
	// A folder name ending in a mark is an ordinary relative path; one the
	// output screen reads as a machine path ("notes:/…") costs its notes.
	files["Archive (2023)/kept.md"] = "# Kept\n\n" + Words + "\n"
	files["C++/kept.md"] = "# Kept\n\n" + Words + "\n"
	files["notes:/odd.md"] = "# Odd\n\n" + Words + "\n"
	for i, name := range lookAlikes() {
		m := fmt.Sprintf("LOOKALIKEMARKER%02d", i)
		files["notes/"+name] = fmt.Sprintf("# Look-alike %d\n\n%s %s\n", i, Words, m)
		markers = append(markers, m)
	}
	return files, markers
}

// marker is the part of a secret that must never be echoed: its longest
// run without spaces or quotes.
func marker(s string) string {
	best := ""
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" \n\"'{}:=@/", r) }) {
		if len(f) > len(best) {
			best = f
		}
	}
	return best
}

func rnd(seed int64, n int, alphabet string) string {
	r := rand.New(rand.NewSource(seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.Intn(len(alphabet))]
	}
	return string(b)
}

const (
	alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

func contentSecrets() []string {
	aws := "AKIA" + rnd(1, 16, upper)
	return []string{
		"github_pat_" + rnd(2, 22, alnum) + "_" + rnd(3, 59, alnum),
		"sk_live_" + rnd(4, 24, alnum),
		"eyJhbGciOiJIUzI1NiJ9.eyJ" + rnd(5, 40, alnum) + "." + rnd(6, 43, alnum),
		"AIza" + rnd(7, 35, alnum),
		"npm_" + rnd(8, 36, alnum),
		"glpat-" + rnd(9, 20, alnum),
		"sk-ant-api03-" + rnd(10, 93, alnum) + "AA",
		"https://hooks.slack.com/services/T" + rnd(11, 8, upper) + "/B" + rnd(12, 8, upper) + "/" + rnd(13, 24, alnum),
		"aws_secret_access_key = " + rnd(14, 40, alnum),
		aws[:10] + "\n" + aws[10:],
		"git:PW" + rnd(15, 10, alnum) + "@host:repo",
		"ghp_" + rnd(16, 36, alnum),
		"xoxb-" + rnd(17, 12, "0123456789") + "-" + rnd(18, 24, alnum),
		"Authorization: Bearer " + rnd(19, 32, alnum),
		"https://deploy:" + rnd(20, 14, alnum) + "@example.com/repo.git",
		// Written so that the raw bytes differ from the key a reader sees.
		"gh&#112;_" + rnd(30, 36, alnum),
		"ghp*_*" + rnd(31, 36, alnum),
		"gһp_" + rnd(32, 36, alnum), // Cyrillic shha
		`\x67hp_` + rnd(33, 36, alnum),
		"> xoxb-" + rnd(34, 6, "0123456789") + "\n> " + rnd(35, 6, "0123456789") + "-" + rnd(36, 24, alnum),
		aws[:8] + "  \n" + aws[8:],
		"password = {{user}}" + rnd(37, 20, alnum),
		"token = ^" + rnd(38, 16, alnum) + "^",
	}
}

func credentialNames() []string {
	return []string{
		"AKIAIOSFODNN7EXAMPLE", "sk_live_" + rnd(21, 24, alnum), "AIza" + rnd(22, 35, alnum),
		"github_pat_" + rnd(23, 22, alnum) + "_" + rnd(24, 59, alnum), "ghp_" + rnd(25, 36, alnum),
		"xoxb-" + rnd(26, 12, "0123456789") + "-" + rnd(27, 24, alnum),
		// No credential until slugify derives an id from it.
		"glpat " + rnd(28, 20, "abcdefghijklmnopqrstuvwxyz0123456789"),
	}
}

func lookAlikes() []string {
	return []string{"sеcret.md", "tоken.md", "id_rsа.md", ".énv.md", "se\u0301cret.md", "ｓｅｃｒｅｔ.md", "to\u200bken.md",
		"passw0rd.md", "%73ecret.md", "ΡASSWORD.md", "ıd_rsa.md",
		"sec\u3164ret.md", "\uABAAecret.md", "credentiaIs.md", ".en\u0475.md"}
}
