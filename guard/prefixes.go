package guard

import "strings"

// vendorPrefixes start the keys vendors issue. A token that starts with
// one (after anything but a letter or digit) and goes on with at least
// sixteen key characters that look generated is a credential, whatever
// its exact length or alphabet: a format's documented length is a
// description, not a promise (a longer sk-ant-api03- key, a github_pat_
// of another length). They are matched as spelt; TestVendorPrefixes
// holds the list to the gitleaks rules' own key prefixes.
var vendorPrefixes = []string{
	// cloud
	"AKIA", "ASIA", "ABIA", "ACCA", "A3T", "AIza", "GOCSPX-", "ya29.", "LTAI", "AKID", "ABSK", "AKCp", "ATATT3",
	"dop_v1_", "doo_v1_", "dor_v1_", "DOR_V1_", "hvs.", "hvb.", "hvr.", "dt0c01.", "dapi", "EZAK", "EZTK",
	"sbp_", "sb_secret_", "dckr_pat_", "dckr_oat_",
	// source hosts and registries
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-",
	"glffct-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-", "GR1348941", "glc_", "glsa_",
	"npm_", "pypi-", "rubygems_", "CLOJARS_", "pnu_", "pul-", "rdme_",
	// AI providers
	"sk-", "hf_", "api_org_", "pplx-", "gsk_", "xai-", "nvapi-", "lsv2_pt_", "lsv2_sk_", "r8_", "tvly-",
	// payments and commerce
	"sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "whsec_", "sq0atp-", "sq0csp-",
	"EAAA", "shpat_", "shpca_", "shppa_", "shpss_", "FLWSECK_TEST-", "FLWSECK-", "duffel_live_",
	"duffel_test_", "shippo_live_", "shippo_test_",
	// chat and mail
	"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxo-", "xoxe-", "xoxe.", "xapp-", "SG.", "xkeysib-",
	"xsmtpsib-",
	// the rest
	"lin_api_", "ntn_", "PMAK-", "p8e-", "ico-", "fio-u-", "dp.pt.", "dp.st.", "dp.ct.", "dp.sa.",
	"pscale_tkn_", "pscale_oauth_", "pscale_pw_", "sntrys_", "sntryu_", "sm_aat_", "sm_pat_", "sm_sat_",
	"HRKU-AA", "AGE-SECRET-KEY-1", "tk-us-", "ops_eyJ", "sha256~",
}

// minKeyTail is how many letters and digits after a vendor prefix make a
// key.
const minKeyTail = 16

// prefixedKey reports a key in w that starts with prefix p.
func prefixedKey(w, p string) bool {
	for i := strings.Index(w, p); i >= 0; {
		if keyEdgeBefore(w, i) && keyLike(keyTail(w[i+len(p):])) {
			return true
		}
		j := strings.Index(w[i+1:], p)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// keyEdgeBefore reports that a key may start at w[i]: at the start, or
// after anything but a letter or digit; after "_" only when that "_" is
// itself markup (_npm_…_), not part of a longer name (my_npm_…).
func keyEdgeBefore(w string, i int) bool {
	if i == 0 {
		return true
	}
	c := w[i-1]
	if isAlnum(c) {
		return false
	}
	return c != '_' || i == 1 || !isAlnum(w[i-2])
}

// keyTail is the run of key characters (letters, digits, "_", "-") at the
// start of s.
func keyTail(s string) string {
	j := 0
	for j < len(s) && (isAlnum(s[j]) || s[j] == '_' || s[j] == '-') {
		j++
	}
	return s[:j]
}

// keyLike reports a tail that reads as generated: at least minKeyTail
// key characters, with digits and letters both, or with both cases where
// no word would have them (randomCase), and no run of six of one
// character and no "xxx" (a placeholder's filling). Snake-case and
// camel-case names after a prefix (npm_config_registry, hf_hubDownload)
// are not, nor a word in capitals without a digit (ASIAPACIFICOFFICE).
func keyLike(s string) bool {
	run := 0
	var digit, letter, upper, lower bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i > 0 && s[i-1] == c {
			if run++; run >= 5 {
				return false
			}
		} else {
			run = 0
		}
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z':
			letter, upper = true, true
		case c >= 'a' && c <= 'z':
			letter, lower = true, true
		}
	}
	if len(s) < minKeyTail || strings.Contains(strings.ToLower(s), "xxx") {
		return false
	}
	return digit && letter || upper && lower && randomCase(s)
}

// randomCase reports letters whose case changes where no word's does: two
// capitals together, or a capital, one small letter and a capital
// (KSNVXcZn, aBcD). CamelCase names (AuthToken, SecretString) have
// neither; acronyms in them (HTTPClient) read as random, which only
// errs towards hiding.
func randomCase(s string) bool {
	isUp := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	for i := 1; i < len(s); i++ {
		if isUp(s[i]) && (isUp(s[i-1]) || i > 1 && isUp(s[i-2]) && s[i-1] >= 'a' && s[i-1] <= 'z') {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
