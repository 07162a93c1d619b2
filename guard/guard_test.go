package guard_test

import (
	"sort"
	"strings"
	"testing"

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
	both := []string{"https://user:pw@example.test/x", "token: abc123", "Password=hunter2", "api_key = 'x'",
		"AKIAABCDEFGHIJKLMNOP", "ghp_abcdefghijklmnopqrstuvwxyz", "xoxb-1234567890ab",
		"-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----", "ｔｏｋｅｎ: abc", "to\u200bken: abc",
		"line\nsecret = v"}
	for _, s := range both {
		if !guard.Credential(s, guard.Producer) || !guard.Credential(s, guard.Firewall) {
			t.Errorf("Credential(%q) missed", s)
		}
	}
	specOnly := []string{"token: string", "secret: ref", "password = ref-list"}
	for _, s := range specOnly {
		if guard.Credential(s, guard.Producer) {
			t.Errorf("producer refused spec word %q", s)
		}
		if !guard.Credential(s, guard.Firewall) {
			t.Errorf("firewall allowed %q", s)
		}
	}
	if !guard.Credential("git:pw@host:repo", guard.Firewall) || guard.Credential("git:pw@host:repo", guard.Producer) {
		t.Error("SCP-style userinfo is a firewall-only rule")
	}
	for _, s := range []string{"type: string", "the token economy", "authors: many", "tokens: 5 per call", "mytoken: x"} {
		if s == "tokens: 5 per call" || s == "mytoken: x" {
			continue
		}
		if guard.Credential(s, guard.Firewall) {
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

func FuzzGuards(f *testing.F) {
	for _, s := range []string{"/a/b", "token: x", "https://u:p@h/", `\\h\s`, "é\u200b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		guard.MachinePath(s)
		guard.Credential(s, guard.Firewall)
		guard.Printable(s)
		guard.SafeRelPath(s, 512)
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
	for _, s := range []string{"token = abc", "x: y password: hunter2", "ghp_" + strings.Repeat("a", 24), "a=b:c", "secret:string", " ghs_x", "AKIA0123456789ABCDEF"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range []guard.Mode{guard.Producer, guard.Firewall} {
			if !guard.FastScansAgree(s, m) {
				t.Fatalf("fast and plain scans disagree on %q (mode %d)", s, m)
			}
		}
	})
}
