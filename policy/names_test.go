package policy_test

import (
	"io/fs"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/internal/benchgen"
	"github.com/vivary-dev/vivary-go/policy"
	"golang.org/x/text/unicode/norm"
)

// TestLookAlikeNames: a name that looks like a secret name to a reader is
// one. Each base name is disguised every way a file system keeps apart
// and a reader does not.
func TestLookAlikeNames(t *testing.T) {
	t.Parallel()
	disguises := map[string]func(string) string{
		"cyrillic": func(s string) string {
			return strings.NewReplacer("e", "е", "o", "о", "a", "а", "c", "с", "p", "р", "i", "і", "x", "х", "s", "ѕ").Replace(s)
		},
		"greek": func(s string) string {
			return strings.NewReplacer("o", "ο", "i", "ι", "k", "κ", "t", "τ", "e", "ε").Replace(s)
		},
		"upper cyr": func(s string) string {
			return strings.NewReplacer("E", "Е", "T", "Т", "O", "О", "K", "К", "C", "С").Replace(strings.ToUpper(s))
		},
		"fullwidth":   func(s string) string { return strings.Map(func(r rune) rune { return r - 0x21 + 0xFF01 }, s) },
		"zero-width":  func(s string) string { return s[:1] + "\u200b" + s[1:2] + "\u200d" + s[2:] },
		"soft hyphen": func(s string) string { return s[:2] + "\u00ad" + s[2:] },
		"nfd accent":  func(s string) string { return norm.NFD.String(s[:1] + "\u0301" + s[1:]) },
		"nfc accent":  func(s string) string { return norm.NFC.String(s[:1] + "\u0301" + s[1:]) },
		"turkish":     func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "i", "ı"), "I", "İ") },
		"percent":     func(s string) string { return "%" + strings.ToUpper(hex2(s[0])) + s[1:] },
		"double pct":  func(s string) string { return "%25" + hex2(s[0]) + s[1:] },
		"digits":      func(s string) string { return strings.NewReplacer("o", "0", "l", "1").Replace(s) },
		"small caps":  func(s string) string { return strings.NewReplacer("e", "ᴇ", "o", "ᴏ", "t", "ᴛ").Replace(s) },
		"math bold": func(s string) string {
			return strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' {
					return 0x1D41A + r - 'a'
				}
				return r
			}, s)
		},
		"upper": strings.ToUpper,
	}
	bases := []string{"secret.md", "token.md", "id_rsa", ".env", "password.md", "credentials", "private", ".npmrc", "server.pem", "passwd.md", "api_key.md"}
	for _, base := range bases {
		for name, d := range disguises {
			s := d(base)
			if s == base && name != "upper" {
				continue
			}
			if !policy.SensitiveName(s) {
				t.Errorf("%s of %q: %q (%+q) admitted", name, base, s, s)
			}
		}
	}
	// Ligatures: ﬁ and ﬆ are their letters.
	for _, s := range []string{"ﬁle-secret.md", "ﬆ-token.md", "ⓢecret.md", "ѕесrеt", ".énv.md", "sécret", "tоken", "id_rsа"} {
		if !policy.SensitiveName(s) {
			t.Errorf("%q admitted", s)
		}
	}
}

// TestLookAlikesOfEveryScript: a letter that looks like a Latin one is
// that letter whatever script or block it comes from (UTS #39's
// one-character confusables), a dash is a hyphen, and every form of a
// capital I reads as l. Each name below was once admitted.
func TestLookAlikesOfEveryScript(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"ꓢecret.md", "ꓢꓰꓚꓣꓰꓔ.md", // Lisu
		"tⲟken.md", ".eⲚv", // Coptic
		"t\U00010404ken.md", ".aw\U00010420", // Deseret
		"t\U000104C2ken.md", ".gn\U000104CEpg", // Osage
		"id_rᏕa", ".awᏕ", // Cherokee
		".enᐯ", "ᑭassword.md", // Canadian Syllabics
		".e\U00010513v", ".dంcker", ".dಂcker", // Elbasan; the anusvara, a spacing mark, as o
		"t\U000118E0ken.md", "secre\U000118BC.md", // Warang Citi
		"t०ken.md", "t০ken.md", "t੦ken.md", "t૦ken.md", "t௦ken.md", "t౦ken.md", "t೦ken.md", "t൦ken.md", "t๐ken.md", "t໐ken.md", // Indic and Thai digits
		"tဝken.md", "tჿken.md", "t〇ken.md", "tهken.md", "t߀ken.md", // Myanmar, Georgian, CJK, Arabic, NKo
		"٠env", "۰env.md", "ꓸenv", // dots
		".℮nv", ".ⴹnv", ".ꬲnv", ".eռv", // symbols, Tifinagh, blackletter, Armenian
		".en∨", ".gi⊤", ".do\U0001F74Cker", ".docᛕer", // logic, runes, alchemy
		"api‐key.md", "private‒key.md", "sftp–config.json", "private˗key", "api−key.md", // dashes
		"credentiaℐs", "credentiaⅠs", "credentiaＩs", "credentia∣s", // capital I and bars as l
	} {
		if !policy.SensitiveName(s) {
			t.Errorf("%q (%+q) admitted", s, s)
		}
	}
	// Scripts spell their own words: no Latin look-alike is made of them.
	for _, s := range []string{"نرم\u200cافزار.md", "हिन्दी.md", "ភាសាខ្មែរ.md", "ᏣᎳᎩ.md", "Ⲙⲉⲧⲣⲉⲙⲛ̀ⲭⲏⲙⲓ.md", "ꓡꓲꓢꓳ.md", "၀၁၂.md", "٢٠٢٤.md"} {
		if policy.SensitiveName(s) {
			t.Errorf("%q is called secret-looking", s)
		}
	}
}

// TestInvisibleCharactersNeverUnhideAName: every kind of character that
// draws nothing, put at every place in a secret-looking name, leaves it
// secret-looking or makes it unsafe: either way it is never read. (An
// attack pass tried every Cf, Mn, Mc, Me, Zs, Zl, Zp, Co, default-ignorable,
// variation selector and tag code point at every place of every listed
// name, 128 million names; none was read. These are its representatives.)
// Case folding is applied as Unicode's, the Kelvin sign and the long s
// included.
func TestInvisibleCharactersNeverUnhideAName(t *testing.T) {
	t.Parallel()
	invisible := []string{
		"\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\u034f", "\u061c", "\u200e", "\u202e", "\u2066", "\ufeff",
		"\u2062", "\u180e", "\u180b", "\u3164", "\u115f", "\u1160", "\uffa0", "\u17b4", "\u2800", "\ufe0f", "\U000e0100",
		"\U000e0041", "\U000e007f", "\U0001bca0", "\U0001d173", "\u00a0", "\u2007", "\u3000", "\u2028", "\ue000",
		"\u0301", "\u0336", "\u20dd", "\u0903", "\u094d\u200d", "\u0600",
	}
	for _, base := range []string{".env", "id_rsa.md", "secrets", "token.md", ".npmrc", "credentials.json", "a.pem", "kubeconfig", ".ssh"} {
		rs := []rune(base)
		for i := 0; i <= len(rs); i++ {
			for _, x := range invisible {
				s := string(rs[:i]) + x + string(rs[i:])
				if guard.PathFault(s, 4096) == "" && !policy.SensitiveName(s) {
					t.Errorf("%+q would be read", s)
				}
			}
		}
	}
	for _, s := range []string{"\u212Aubeconfig", ".\u212Aube", "ſecret.md", "SECRET.md", "İd_rsa", "ıd_rsa", "ID_RSA", "\u0130\u0307d_rsa"} {
		if !policy.SensitiveName(s) {
			t.Errorf("%+q admitted", s)
		}
	}
}

func hex2(c byte) string {
	return strings.ToLower(string("0123456789ABCDEF"[c>>4]) + string("0123456789ABCDEF"[c&15]))
}

func rnd(seed int64, n int, alphabet string) string {
	r := rand.New(rand.NewSource(seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.Intn(len(alphabet))]
	}
	return string(b)
}

// TestCredentialShapedNames: a path component the credential rules match
// is a sensitive name, with or without its extension, in any folder.
func TestCredentialShapedNames(t *testing.T) {
	t.Parallel()
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	tokens := []string{
		"AKIAIOSFODNN7EXAMPLE", "AKIA" + rnd(1, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
		"sk_live_" + rnd(2, 24, alnum), "AIza" + rnd(3, 35, alnum), "github_pat_" + rnd(4, 22, alnum) + "_" + rnd(5, 59, alnum),
		"ghp_" + rnd(6, 36, alnum), "xoxb-" + rnd(7, 12, "0123456789") + "-" + rnd(8, 24, alnum), "glpat-" + rnd(9, 20, alnum),
		"npm_" + rnd(10, 36, alnum), "git:pw@host:repo",
	}
	// Names that are no credential until an id is derived from them:
	// slugify lower-cases and turns the space into "-".
	for _, name := range []string{"glpat " + rnd(11, 20, "abcdefghijklmnopqrstuvwxyz0123456789") + ".md", "GLPAT " + rnd(12, 20, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") + ".md"} {
		if !policy.SensitiveName(name) {
			t.Errorf("%q admitted: its id is a GitLab token", name)
		}
	}
	for _, tok := range tokens {
		for _, name := range []string{tok, tok + ".md", tok + "-notes.md", "notes " + tok + ".md", "%" + hex2(tok[0]) + tok[1:] + ".md",
			strings.ToUpper(tok[:1]) + tok[1:] + ".markdown"} {
			if !policy.SensitiveName(name) {
				t.Errorf("%q admitted", name)
			}
			if !policy.Sensitive("notes/deep/er/" + name + "/index.md") {
				t.Errorf("folder %q admitted", name)
			}
		}
	}
}

// TestOrdinaryNamesAdmitted: the bench corpus and the example workspace
// keep every name.
func TestOrdinaryNamesAdmitted(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "bench")
	if err := benchgen.Write(root, 1000, 200); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, filepath.Join("..", "examples", "workspace")} {
		n := 0
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == dir {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			n++
			if policy.Sensitive(filepath.ToSlash(rel)) && !strings.HasPrefix(rel, ".git") {
				t.Errorf("%s: %s is called sensitive", dir, rel)
			}
			return nil
		})
		if err != nil || n == 0 {
			t.Fatalf("%s: %v (%d names)", dir, err, n)
		}
	}
}
