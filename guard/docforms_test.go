package guard_test

import (
	"math/rand/v2"
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
		// A key's length and alphabet shown by a counting run or a
		// repeated block.
		{"filler", "key> 0123456789abcdef0123456789abcdef0123456789\n"},
		{"filler", "Set it with --proton-otp-secret-key=ABCDEFGHIJKLMNOPQRSTUVWXYZ234567\n"},
		{"filler", "    docker swarm join --token SWMTKN-1-aabbccdd00112233aabbccdd00112233aabbccdd00112233aa-aabbccdd00112233... 10.0.0.2:2377\n"},
		{"filler", "api_key = \"abcdefghijklmnopqrstuvwxyz012345\"\n"},
		// The word after a name that names the field, a masked value, a
		// word in emphasis the reader replaces, a label of an error chain
		// or a connection string, a public key.
		{"field word", "  - Send \"Bearer\" in the Authorization: header as the RFC spells it\n"},
		{"masked", "- private_key: private_************************\n"},
		{"masked", "- api_key: sk_live_****************\n"},
		{"emphasis", "mytool mount -o sftp-host=_hostname_ -o sftp-pass=_password_ -o ro\n"},
		{"emphasis", "mytool mount -o sftp-pass=*password*\n"},
		{"label", "ERROR: could not refresh token: invalid_grant: the grant may have expired\n"},
		{"label", "mytool lsd :s3,env_auth=true: # list the buckets\n"},
		{"public key", " Issuer Public Key: " + base64Key + "\n"},
		{"public key", "ssh_pub_key = " + base64Key + "\n"},
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
		{"filler", "key> 7c1e93a0b4f26d58e0c3a9b71f4d26e85a0c3b9d7f\n"},
		{"filler", "Set it with --proton-otp-secret-key=JBSWY3DPEHPK3PXPQ7RT4MZX2KLA5VWC\n"},
		{"filler", "    docker swarm join --token SWMTKN-1-49nj1cmql0jkz5s954yi3oex3nedyz0fb0xx14ie39trti4wxv-8vxv8rssmk743ojnwacrr2e7c... 10.0.0.2:2377\n"},
		{"filler", "api_key = \"abcdef0123Xq8Zr2kLm9Tv4Wp7Ys3Nb6\"\n"},
		{"field word", "  - Send it in the Authorization: Bearer Zx81kQp0Lm2Vb7Nc header\n"},
		{"masked", "- private_key: private_Zx81kQp0Lm2Vb7Nc**\n"},
		{"emphasis", "mytool mount -o sftp-pass=_Zx81kQp0Lm2Vb7Nc_\n"},
		{"emphasis", "mytool mount -o sftp-pass=_hunter2_\n"},
		{"label", "ERROR: could not refresh token: Zx81kQp0Lm2Vb7Nc: expired\n"},
		{"label", "password: hunter2:\n"},
		{"public key", " Issuer Private Key: " + base64Key + "\n"},
		{"public key", " Issuer Key: " + base64Key + "\n"},
		{"public key", " Public Key ID: 1 Secret Key: " + base64Key + "\n"},
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

// TestFillerNeverARandomKey: keys drawn at random from the alphabets keys
// use, at the lengths they have, in a position every rule reads as a
// secret, are all still hidden: no random key reads as a pattern.
func TestFillerNeverARandomKey(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 12))
	for _, alphabet := range []string{"0123456789abcdef", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
		"0123456789abcdefghijklmnopqrstuvwxyz", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"} {
		for n := 20; n <= 64; n += 4 {
			for k := 0; k < 50; k++ {
				b := make([]byte, n)
				for i := range b {
					b[i] = alphabet[r.IntN(len(alphabet))]
				}
				if s := "api_key = \"" + string(b) + "\"\n"; !guard.Credential(s) {
					t.Errorf("not hidden: %q", s)
				}
			}
		}
	}
}

// base64Key is a key-shaped base64 value written here (no real key's).
const base64Key = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEq7Vb2Lm9Tv4Wp7Ys3Nb6Zx81kQp0Lm2Vb7NcR8tVw3KdHsF2jQ=="
