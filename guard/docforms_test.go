package guard_test

import (
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
)

// Documentation forms that read like a credential to a rule but are not
// one (excerpts written here in the shape of generated notes, rclone's,
// Docker's and Node's docs), each beside the same position holding a
// realistic random key, which must still be hidden.

func TestDocFormsAdmitted(t *testing.T) {
	for _, c := range []struct{ class, text string }{
		// A frontmatter list of note ids: generic-api-key read "bapi" as
		// a name and "," as its operator.
		{"id list", "---\nstatus: active\nrelated_modules: [bodi-bapi-00162, ganu-dome-00719]\n---\n# Note\n"},
		{"id list", "---\nrelated_changes: [kapi-lote-00017, sun-mera-00480, tobe-nuki-09113]\n---\n"},
		{"id list", "links: [auth-flow_notes, release.notes-2024, api-design-003]\n"},
		// An image pinned by digest is not user:password@host.
		{"digest", "ID  NAME     IMAGE\nx1  redis.1  redis:7.4.1@sha256:6a692a76c2081888b589e26e6ec835743119fe453d67ecf03df7de5b73d69842  node1\n"},
		{"digest", "FROM postgres:16-alpine@sha512:" + hexDigits(128) + "\n"},
		// Flag tables: a prefixed switch, a flag that is a link's text, a
		// bracketed placeholder split into words.
		{"flags", "      --s3-no-auth                    Don't require auth for certain methods\n"},
		{"flags", "| [`--token`](#token) | `string` | | Token for entry into the cluster |\n"},
		{"flags", "- `--web-pass <random password>`\n"},
	} {
		if guard.Credential(c.text) {
			class, line := guard.CredentialAt(c.text)
			t.Errorf("%s: hidden by %s (line %d): %q", c.class, class, line, c.text)
		}
	}
}

func TestDocFormsKeysStillHidden(t *testing.T) {
	for _, c := range []struct{ class, text string }{
		// The same list with a generated key where an id stood, or the
		// list under a secret's name.
		{"id list", "---\nrelated_modules: [bodi-bapi-00162, x7Gd93kLq2PzR8tVw]\n---\n"},
		{"id list", "---\nrelated_modules: [bodi-bapi-00162, 9f8e7d6c5b4a39281f0e]\n---\n"},
		{"id list", "---\nrelated_modules: [bodi-bapi-00162, q8wz3kd7m2np5xv1rt6y]\n---\n"},
		{"id list", "---\napi_keys: [bodi-bapi-00162, ganu-dome-00719]\n---\n"},
		{"id list", "---\nrelated_modules: [\"bodi-bapi-00162\", \"Zx81kQp0Lm2Vb7Nc\"]\n---\n"},
		// A password before an @ that is no digest, or a digest shape
		// after a key.
		{"digest", "redis://default:Zx81kQp0Lm2Vb7Nc@cache.internal:6379\n"},
		{"digest", "ssh deploy:Zx81kQp0Lm2Vb7Nc@sha256:6a692a76c2081888b589e26e6ec835743119fe453d67ecf03df7de5b73d69842\n"},
		{"digest", "git clone deploy:hunter2@host:repo.git\n"},
		{"flags", "      --s3-auth Zx81kQp0Lm2Vb7Nc   Don't require auth\n"},
		{"flags", "| `mytool --token Zx81kQp0Lm2Vb7Nc` | logs in |\n"},
		{"flags", "- `mytool --web-pass <Zx81kQp0Lm2Vb7Nc`\n"},
	} {
		if !guard.Credential(c.text) {
			t.Errorf("%s: not hidden: %q", c.class, c.text)
		}
	}
}

func hexDigits(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = digits[x%16]
	}
	return string(b)
}
