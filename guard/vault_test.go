package guard

import (
	"math/rand"
	"regexp/syntax"
	"strings"
	"testing"
)

func vaultRule(tb testing.TB) *rule {
	for _, r := range screen().rules {
		if r.spec.id == "vault-service-token" {
			r.compile()
			return r
		}
	}
	tb.Fatal("no vault-service-token rule")
	return nil
}

// TestVaultFilterInUse: a regenerated rule set whose vault rule has
// another pattern leaves it unfiltered, and slow; this says so.
func TestVaultFilterInUse(t *testing.T) {
	if vaultRule(t).may == nil {
		t.Errorf("vault-service-token's pattern is not the one vaultMay reads; update vaultRegex and vaultMay")
	}
}

// vaultMatch writes a match of the vault expression, of any length its
// repetitions allow, in text of other bytes.
func vaultMatch(rnd *rand.Rand) string {
	re, err := syntax.Parse(vaultRegex, syntax.Perl)
	if err != nil {
		panic(err)
	}
	pick := func(set string, lo, hi int) string {
		var b strings.Builder
		for n := lo + rnd.Intn(hi-lo+1); n > 0; n-- {
			b.WriteByte(set[rnd.Intn(len(set))])
		}
		return b.String()
	}
	other := pick("_-. \t\n`'\";\\|%:=/()"+alnum, 0, 40)
	key := sample(re.Simplify(), rnd, rnd.Intn(40))
	if rnd.Intn(3) == 0 {
		// The sampler prefers letters and digits; [\w-] takes more.
		key = "hvs." + pick("_-"+alnum, 90, 120)
	}
	return other + pick(" \t\n`'\";(", 0, 2) + key + pick(" \t\n`'\";)", 0, 2) + pick("_-. \n`;\\"+alnum, 0, 40)
}

// TestVaultMayLetsMatchesThrough: vaultMay never holds back a text the
// expression matches in, on generated matches of both alternatives.
func TestVaultMayLetsMatchesThrough(t *testing.T) {
	r := vaultRule(t)
	rnd := rand.New(rand.NewSource(1))
	matched := 0
	for range 20_000 {
		s := vaultMatch(rnd)
		if !r.re.MatchString(s) {
			continue
		}
		matched++
		if !vaultMay(s) {
			t.Fatalf("vaultMay holds back %q, which the expression matches", s)
		}
	}
	if matched < 5000 {
		t.Fatalf("only %d of the generated texts were matches", matched)
	}
}

// FuzzVaultMay: on any text, vaultMay lets through every text the
// vault expression matches in.
func FuzzVaultMay(f *testing.F) {
	rnd := rand.New(rand.NewSource(2))
	for range 30 {
		f.Add(vaultMatch(rnd))
	}
	for _, s := range agreementSeeds(f) {
		f.Add(s)
	}
	r := vaultRule(f)
	f.Fuzz(func(t *testing.T, s string) {
		if !vaultMay(s) && r.re.MatchString(s) {
			t.Fatalf("vaultMay holds back %q, which the expression matches", s)
		}
	})
}
