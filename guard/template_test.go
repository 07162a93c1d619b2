package guard

import (
	"math/rand"
	"strings"
	"testing"
)

// genericRule is the generic-api-key rule, compiled.
func genericRule(tb testing.TB) *rule {
	for _, r := range screen().rules {
		if r.spec.id == "generic-api-key" {
			r.compile()
			return r
		}
	}
	tb.Fatal("no generic-api-key rule")
	return nil
}

// TestGenericFilterInUse: a regenerated rule set whose generic rule has
// another pattern leaves it unfiltered, and slow; this says so.
func TestGenericFilterInUse(t *testing.T) {
	if r := genericRule(t); r.may == nil {
		t.Errorf("generic-api-key's pattern is not the one genericMay reads; update genericRegex, genericKeywords and the byte sets")
	}
}

// genericMatch writes a match of the generic pattern with every part
// drawn at random from what the pattern allows, in text of any bytes.
func genericMatch(r *rand.Rand) string {
	pick := func(set string, lo, hi int) string {
		var b strings.Builder
		for n := lo + r.Intn(hi-lo+1); n > 0; n-- {
			b.WriteByte(set[r.Intn(len(set))])
		}
		return b.String()
	}
	const word = "_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	kws := []string{"access", "auth", "api", "Api", "API", "credential", "creds", "key", "passwd", "password", "secret", "token"}
	kw := kws[r.Intn(len(kws))]
	if kw != "Api" && kw != "API" {
		b := []byte(kw)
		for i := range b {
			if r.Intn(2) == 0 {
				b[i] = strings.ToUpper(string(b[i]))[0]
			}
		}
		kw = string(b)
	}
	ops := []string{"=", ">", ":=", "::=", ":::=", "||", ":", "=>", "?=", ","}
	value := pick(word+".=-", 10, 40)
	if r.Intn(2) == 0 {
		value = pick("abcdefghijklmnopqrstuvwxyz0123456789", 1, 1) + pick("abcdefghijklmnopqrstuvwxyz0123456789+/", 11, 30) + pick("=", 0, 3)
	}
	ends := []string{"`", "'", "\"", " ", "\t", "\n", ";", `\n`, `\r`, ""}
	end := ends[r.Intn(len(ends))]
	any := func() string { return pick(word+" \t\r\n.-=:>|?,'\"`;\\\x00{}()[]$%", 0, 60) }
	s := pick(word+".-", 0, 50) + kw + pick(word+" \t.-", 0, 20) + pick(" \t\n\f\r'\"", 0, 3) +
		ops[r.Intn(len(ops))] + pick("`'\" \t\n\f\r=", 0, 5) + value + end
	if end == "" {
		return any() + s
	}
	return any() + s + any()
}

// TestGenericMayLetsMatchesThrough: genericMay never holds back a text
// the pattern matches in, on generated matches of every part's range.
func TestGenericMayLetsMatchesThrough(t *testing.T) {
	g := genericRule(t)
	r := rand.New(rand.NewSource(1))
	matched := 0
	for range 200_000 {
		s := genericMatch(r)
		if !g.re.MatchString(s) {
			continue
		}
		matched++
		if !genericMay(s) {
			t.Fatalf("genericMay holds back %q, which the pattern matches", s)
		}
	}
	if matched < 150_000 {
		t.Fatalf("only %d of the generated texts were matches", matched)
	}
}

// FuzzGenericMay: on any text, genericMay lets through every text the
// generic pattern matches in.
func FuzzGenericMay(f *testing.F) {
	r := rand.New(rand.NewSource(2))
	for range 50 {
		f.Add(genericMatch(r))
	}
	for _, s := range agreementSeeds(f) {
		f.Add(s)
	}
	g := genericRule(f)
	f.Fuzz(func(t *testing.T, s string) {
		if !genericMay(s) && g.re.MatchString(s) {
			t.Fatalf("genericMay holds back %q, which the pattern matches", s)
		}
	})
}
