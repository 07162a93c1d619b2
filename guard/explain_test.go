package guard_test

import (
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
)

// CredentialAt names the line and the class of what the screen found,
// never the value.
func TestCredentialAt(t *testing.T) {
	stripe := "sk_live_" + strings.Repeat("4eC39HqLyjWDarjtT1zdp7dc", 1)
	for _, c := range []struct {
		text, class, value string
		line               int
	}{
		{"# Notes\n\nplain\nkey AKIAIOSFODNN7EXAMPLE here\n", "aws-access-key-id", "AKIAIOSFODNN7EXAMPLE", 4},
		{"intro\n\npassword = hunter2hunter2\nmore\n", "secret-assignment", "hunter2hunter2", 3},
		{"see https://admin:s3cr3tpw@nas.example.test/\n", "url-userinfo", "s3cr3tpw", 1},
		{"a\nb\n-----BEGIN RSA PRIVATE KEY-----\nMIIB\n", "private-key", "MIIB", 3},
		{"x\n\nthe key is " + stripe + " for billing\n", "", stripe, 3},
		{"x\ny\nghp_abcdefghijklmnopqrstuvwxyz0123456789\n", "github-token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", 3},
		{"run\n\n    mysql -u root -pXk9mQ2pLw4\n", "command-line-password", "Xk9mQ2pLw4", 3},
		{"a\nmachine h.example login bob password Xk9mQ2pLw4\n", "netrc-password", "Xk9mQ2pLw4", 2},
		{"a\nb\ndb.example:5432:app:bob:Xk9mQ2pLw4\n", "pgpass-password", "Xk9mQ2pLw4", 3},
		{"a\n\nsee sk-ant-api03-Xk9mQ2pLw4Xk9mQ2pLw4Xk9mQ2pLw4.\n", "vendor-key", "Xk9mQ2pLw4", 3},
	} {
		class, line := guard.CredentialAt(c.text)
		if line != c.line || c.class != "" && class != c.class || class == "" || strings.Contains(class, c.value) {
			t.Errorf("CredentialAt(%q) = %q, %d; want %q, %d", c.text, class, line, c.class, c.line)
		}
	}
	if class, line := guard.CredentialAt("# clean\n\nnothing here\n"); class != "" || line != 0 {
		t.Errorf("a clean text: %q, %d", class, line)
	}
}

func TestLineWhere(t *testing.T) {
	text := "a\nb\nroot /srv/ws here\nc\n"
	if n := guard.LineWhere(text, func(s string) bool { return strings.Contains(s, "/srv/ws") }); n != 3 {
		t.Errorf("LineWhere = %d", n)
	}
	if n := guard.LineWhere("no\nmatch", func(s string) bool { return strings.Contains(s, "x") }); n != 0 {
		t.Errorf("LineWhere = %d", n)
	}
}
