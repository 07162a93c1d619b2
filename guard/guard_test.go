package guard_test

import (
	"math/rand"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/vivary-dev/vivary-go/guard"
)

func TestMachinePath(t *testing.T) {
	refuse := []string{"/home/user/secret.md", "/usr/local/private.txt", "/data/private.txt",
		"see `/usr/local/private.txt`", "source:/data/private.txt",
		"see [docs](https://example.test/public)/usr/local/private.txt",
		"see `https://example.test/public`/data/private.txt", `C:\Users\x`, "c:/x", `\\host\share`,
		"／etc／passwd"}
	allow := []string{"guides/start.md", "see https://example.test/public/docs", "see https://[::1]/public/docs",
		"and/or", "a // comment", "1/2", "plain text"}
	for _, s := range refuse {
		if !guard.MachinePath(s) {
			t.Errorf("MachinePath(%q) = false", s)
		}
	}
	for _, s := range allow {
		if guard.MachinePath(s) {
			t.Errorf("MachinePath(%q) = true", s)
		}
	}
}

func TestCredential(t *testing.T) {
	refused := []string{"https://user:pw@example.test/x", "token: abc123", "Password=hunter2", "api_key = 'q9z'",
		"AKIAABCDEFGHIJKLMNOP", "ghp_abcdefghijklmnopqrstuvwxyz", "xoxb-1234567890ab",
		"-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----", "ｔｏｋｅｎ: abc", "to\u200bken: abc",
		"line\nsecret = v4lue", "git:pw@host:repo", "mytoken: abc"}
	for _, s := range refused {
		if !guard.Credential(s) {
			t.Errorf("Credential(%q) missed", s)
		}
	}
	for _, s := range []string{"type: string", "the token economy", "authors: many", "tokens: 5 per call",
		"token: string", "secret: ref", "password = ref-list", "Set the password:\n\n`passwd`"} {
		if guard.Credential(s) {
			t.Errorf("Credential(%q) = true", s)
		}
	}
}

func TestPrintable(t *testing.T) {
	for s, want := range map[string]bool{"abc def": true, "é": true, "a\tb": false, "a\nb": false, "a\u00a0b": false,
		"a\u200bb": false, "\xff": false, "中文": true, "": true} {
		if guard.Printable(s) != want {
			t.Errorf("Printable(%q) != %v", s, want)
		}
	}
}

func TestUTF16Order(t *testing.T) {
	xs := []string{"\U0001F600", "\uFF5E", "b", "a", "B"}
	sort.Slice(xs, func(i, j int) bool { return guard.Less(xs[i], xs[j]) })
	want := []string{"B", "a", "b", "\U0001F600", "\uFF5E"}
	for i := range xs {
		if xs[i] != want[i] {
			t.Fatalf("order %q, want %q", xs, want)
		}
	}
}

func TestSafeRelPath(t *testing.T) {
	for p, want := range map[string]bool{"a/b.md": true, "a": true, "../a": false, "/a": false, "a//b": false,
		"a/./b": false, "a\\b": false, "C:x": false, "a/": false, "": false, "a\tb": false} {
		if guard.SafeRelPath(p, 512) != want {
			t.Errorf("SafeRelPath(%q) != %v", p, want)
		}
	}
}

// FuzzGuards checks each guard against a plain definition: Printable
// against Go's graphic classes (Python's isprintable is graphic minus the
// non-ASCII spaces), SafeRelPath against its rules and its exact bound, and
// MachinePath against a precondition (no slash, not a path) and a case it
// must find (an absolute path after a space).
func FuzzGuards(f *testing.F) {
	for _, s := range []string{"/a/b", "token: x", "https://u:p@h/", `\\h\s`, "é\u200b", "نامه\u200cها", "\u202ex", "🏴\U000E0067\U000E007F", "a/b.md", "a//b", "./a", "a/..", "C:x", "\u00a0", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		printable, contextual := utf8.ValidString(s), false
		for _, r := range s {
			graphic := r == ' ' || unicode.IsGraphic(r) && !unicode.Is(unicode.Zs, r)
			invisible := unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) || r == 0x34f || r == 0x2800
			contextual = contextual || invisible
			printable = printable && (graphic || invisible && !unicode.Is(unicode.Bidi_Control, r))
		}
		// Without an invisible character Printable is Python's
		// isprintable; with one it never admits what that refuses besides
		// invisible characters, and never a direction control.
		if got := guard.Printable(s); got != printable && (!contextual || got) {
			t.Fatalf("Printable(%q) = %v", s, got)
		}
		if guard.Printable(s) && guard.TextFault(s) != "" || !guard.Printable(s) && guard.TextFault(s) == "" {
			t.Fatalf("TextFault(%q) = %q disagrees with Printable", s, guard.TextFault(s))
		}
		if e := guard.Escape(s); !guard.Printable(e) {
			t.Fatalf("Escape(%q) = %q is not printable", s, e)
		}

		if guard.SafeRelPath(s, 512) {
			n := utf8.RuneCountInString(s)
			if !printable || n > 512 || strings.HasPrefix(s, "/") || strings.Contains(s, "\\") {
				t.Fatalf("SafeRelPath accepted %q", s)
			}
			for _, seg := range strings.Split(s, "/") {
				if seg == "" || seg == "." || seg == ".." {
					t.Fatalf("SafeRelPath accepted %q with segment %q", s, seg)
				}
			}
			if !guard.SafeRelPath(s, n) || guard.SafeRelPath(s, n-1) {
				t.Fatalf("SafeRelPath(%q) does not bound at %d code points", s, n)
			}
		}

		if !strings.ContainsAny(norm.NFKC.String(s), "/\\") && guard.MachinePath(s) {
			t.Fatalf("MachinePath(%q) without a slash", s)
		}
		if utf8.ValidString(s) && guard.IsASCII(s) && !strings.Contains(s, ":") && !guard.MachinePath(s+" /home/u/x.md") {
			t.Fatalf("MachinePath misses the path after %q", s)
		}
		guard.Credential(s)
	})
}

func FuzzSecurityTextFastPath(f *testing.F) {
	f.Add("plain\ntext\x01\x7f with\ttabs")
	f.Fuzz(func(t *testing.T, s string) {
		slow := false
		for i := 0; i < len(s); i++ {
			if c := s[i]; (c < 0x20 && !strings.ContainsRune(" \t\n\v\f\r", rune(c))) || c == 0x7f {
				slow = true
			}
		}
		if guard.HasControl(s) != slow {
			t.Fatalf("hasControl(%q) = %v", s, !slow)
		}
		ascii := true
		for i := 0; i < len(s); i++ {
			ascii = ascii && s[i] < 0x80
		}
		if a, c := guard.ASCIIControl(s); a != ascii || ascii && c != slow {
			t.Fatalf("asciiControl(%q) = %v, %v", s, a, c)
		}
	})
}

func FuzzLower(f *testing.F) {
	f.Add("Hello WORLD, Quokka @[Z] `a` zz AZ az 09\n")
	f.Add("Ünïcode ÀB")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := guard.Lower(s), strings.ToLower(s); got != want {
			t.Fatalf("Lower(%q) = %q, want %q", s, got, want)
		}
		ascii := true
		for i := 0; i < len(s); i++ {
			ascii = ascii && s[i] < 0x80
		}
		if guard.IsASCII(s) != ascii {
			t.Fatalf("IsASCII(%q) = %v", s, !ascii)
		}
	})
}

func FuzzCredentialScans(f *testing.F) {
	for _, s := range []string{"token = abc", "x: y password: hunter2", "ghp_" + strings.Repeat("a", 24), "a=b:c", "secret:string", " ghs_x", "AKIA0123456789ABCDEF",
		strings.Repeat("word ", 20) + strings.Repeat("x", 70) + " tail"} {
		f.Add(s, uint8(12))
	}
	f.Fuzz(func(t *testing.T, s string, n uint8) {
		if !guard.FastScansAgree(s, 2+int(n)%40) {
			t.Fatalf("fast and plain scans disagree on %q (gate %d)", s, 2+int(n)%40)
		}
	})
}

// rnd is a deterministic stand-in for a secret's random part.
func rnd(seed, n int, alphabet string) string {
	r := rand.New(rand.NewSource(int64(seed)))
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

// TestLeakClasses are the formats the attack pass saw returned, and
// variants of each: every one is a credential wherever it stands.
func TestLeakClasses(t *testing.T) {
	aws := "AKIA" + rnd(1, 16, upper)
	classes := map[string]string{
		"github fine-grained PAT": "github_pat_" + rnd(2, 22, alnum) + "_" + rnd(3, 59, alnum),
		"stripe live key":         "sk_live_" + rnd(4, 24, alnum),
		"jwt":                     "eyJhbGciOiJIUzI1NiJ9.eyJ" + rnd(5, 40, alnum) + "." + rnd(6, 43, alnum),
		"google api key":          "AIza" + rnd(7, 35, alnum),
		"npm token":               "npm_" + rnd(8, 36, alnum),
		"gitlab pat":              "glpat-" + rnd(9, 20, alnum),
		"anthropic key":           "sk-ant-api03-" + rnd(10, 93, alnum) + "AA",
		"slack webhook":           "https://hooks.slack.com/services/T" + rnd(11, 8, upper) + "/B" + rnd(12, 8, upper) + "/" + rnd(13, 24, alnum),
		"aws secret assignment":   "aws_secret_access_key = " + rnd(14, 40, alnum),
		"aws secret in yaml":      "AWS_SECRET_ACCESS_KEY: \"" + rnd(15, 40, alnum) + "\"",
		"camel-case secret":       "clientSecret=" + rnd(16, 12, alnum),
		"json password":           `{"password": "` + rnd(17, 10, alnum) + `"}`,
		"bearer header":           "Authorization: Bearer " + rnd(18, 30, alnum),
		"scp userinfo":            "git:pw@host:repo",
		"url userinfo":            "https://deploy:" + rnd(19, 12, alnum) + "@example.com/x",
		"aws key":                 aws,
		"curl user":               "curl -u admin:" + rnd(20, 12, alnum) + " https://example.com",
		"private key":             "-----BEGIN OPENSSH PRIVATE KEY-----\n" + rnd(21, 70, alnum) + "\n-----END OPENSSH PRIVATE KEY-----",
	}
	for i := 1; i < len(aws); i++ {
		classes["aws key split at "+string(rune('a'+i))] = aws[:i] + "\n" + aws[i:]
	}
	for name, s := range classes {
		for _, note := range []string{s, "# Notes\n\nSome text before.\n\n    " + s + "\n\nAnd after.\n",
			"---\ntitle: x\nvalue: " + s + "\n---\n", "ｘ " + strings.Replace(s, "_", "\u200b_", 1), "text\n" + s + "\nmore"} {
			if !guard.Credential(note) {
				t.Errorf("%s: %q not screened", name, note)
			}
		}
	}
}

// FuzzSkeleton: the skeleton is a fixed point of itself (comparing
// skeletons is an equivalence), and look-alike spellings of a name meet.
func FuzzSkeleton(f *testing.F) {
	for _, s := range []string{"secret.md", "sеcret", "ＴＯＫＥＮ", "İd_rsa", "to\u200bken", "ǅ", "ß", "ﬁ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := guard.Skeleton(s)
		if guard.Skeleton(k) != k {
			t.Fatalf("Skeleton(%q) = %q, whose skeleton is %q", s, k, guard.Skeleton(k))
		}
	})
}

func TestSkeletonMeets(t *testing.T) {
	for _, pair := range [][2]string{{"sеcret", "secret"}, {"tοken", "token"}, {"ıd_rsa", "id_rsa"}, {"İD_RSA", "id_rsa"},
		{"sécret", "secret"}, {"s\u0065\u0301cret", "secret"}, {"ＰＡＳＳＷＯＲＤ", "password"}, {"passw0rd", "password"},
		{"ѕесrеt", "secret"}, {"Ηtpasswd", "htpasswd"}, {"ﬁle", "file"}, {"𝐬𝐞𝐜𝐫𝐞𝐭", "secret"}, {"se\u00adcret", "secret"}} {
		if a, b := guard.Skeleton(pair[0]), guard.Skeleton(pair[1]); a != b {
			t.Errorf("Skeleton(%q) = %q, Skeleton(%q) = %q", pair[0], a, pair[1], b)
		}
	}
}

// TestWordGateAgrees compares the eight-bytes-at-a-time word gate with a
// plain loop on random texts of words 1 to 40 bytes long, every gate.
func TestWordGateAgrees(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for round := 0; round < 3000; round++ {
		var b strings.Builder
		for b.Len() < r.Intn(300) {
			b.WriteString(strings.Repeat("x", 1+r.Intn(40)))
			b.WriteByte(" \n\t"[r.Intn(3)])
		}
		s := b.String()
		if r.Intn(2) == 0 {
			s = strings.TrimRight(s, " \n\t")
		}
		if n := 2 + r.Intn(30); !guard.FastScansAgree(s, n) {
			t.Fatalf("gate %d disagrees on %q", n, s)
		}
	}
}
