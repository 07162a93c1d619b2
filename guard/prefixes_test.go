package guard

import (
	"regexp/syntax"
	"strings"
	"testing"
)

// TestVendorPrefixes holds the vendor prefix list to the gitleaks rules:
// every in-word rule whose matches start with a distinctive literal (one
// with a separator, or four characters or more) has it, or a shorter
// prefix of it, on the list, so a key of that vendor at another length is
// still a key. Rules whose literal is too common a start to stand alone
// are named here.
func TestVendorPrefixes(t *testing.T) {
	notAlone := map[string]string{
		"airtable-personnal-access-token": "pat", "artifactory-reference-token": "base64 of 'ref'",
		"clickhouse-cloud-api-secret-key": "4b1d", "facebook-page-access-token": "EAA",
		"flyio-access-token": "fm1 without a separator", "github-app-token": "gh", "harness-api-key": "pat. sat.",
		"jwt": "ey", "jwt-base64": "base64 of a JSON header", "microsoft-teams-webhook": "a URL",
		"octopus-deploy-api-key": "API-", "sidekiq-sensitive-url": "a URL", "twilio-api-key": "SK",
		"vault-service-token": "s.", "gitlab-session-cookie": "a cookie name", "1password-secret-key": "A3-",
		"sourcegraph-access-token": "case-folded", "grafana-api-key": "case-folded eyJrIjoi",
		"grafana-cloud-api-token": "case-folded", "grafana-service-account-token": "case-folded",
		"slack-legacy-token": "xox (each kind is listed)", "slack-legacy-workspace-token": "xox (each kind is listed)",
		"slack-user-token": "xox (each kind is listed)", "slack-config-access-token": "case-folded",
		"slack-config-refresh-token": "case-folded", "slack-app-token": "case-folded", "npm-access-token": "case-folded",
		"authress-service-client-access-key": "sc_ ext_", "flutterwave-public-key": "a public key",
		"aws-amazon-bedrock-api-key-short-lived": "ABSK's base64 form", "sentry-org-token": "sntrys_ is listed",
		"openai-api-key": "sk- is listed", "intra42-client-secret": "s-s4t2", "cloudflare-origin-ca-key": "v1.0-",
		"gitlab-runner-authentication-token-routable": "glrt- is listed", "pypi-upload-token": "pypi- is listed",
		"easypost-api-token": "EZAK is listed", "easypost-test-api-token": "EZTK is listed",
	}
	for _, r := range screen().rules {
		if r.shape != inWord || notAlone[r.spec.id] != "" {
			continue
		}
		re, err := syntax.Parse(r.spec.regex, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		for _, lit := range leadLiterals(re.Simplify()) {
			if len(lit) < 3 {
				continue
			}
			covered := false
			l := strings.ToLower(lit)
			for _, p := range vendorPrefixes {
				p = strings.ToLower(p)
				covered = covered || strings.HasPrefix(l, p) || strings.HasPrefix(p, l)
			}
			if !covered {
				t.Errorf("%s: its keys start %q, which no vendor prefix covers", r.spec.id, lit)
			}
		}
	}
}

// leadLiterals are the literal strings a match of re starts with (as
// spelt), through its leading edges, captures and small alternations.
func leadLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}
	case syntax.OpCapture:
		return leadLiterals(re.Sub[0])
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			l := leadLiterals(s)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	case syntax.OpConcat:
		out := []string{""}
		for _, s := range re.Sub {
			switch s.Op {
			case syntax.OpWordBoundary, syntax.OpBeginText, syntax.OpBeginLine:
				continue
			}
			l := leadLiterals(s)
			if l == nil {
				return out
			}
			var n []string
			for _, a := range out {
				for _, b := range l {
					n = append(n, a+b)
				}
			}
			if out = n; s.Op != syntax.OpLiteral {
				return out
			}
		}
		return out
	}
	return nil
}
