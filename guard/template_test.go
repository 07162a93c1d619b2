package guard

import (
	"math/rand"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/guard/internal/rulekit"
)

// templateRules are the rules a template filters, compiled.
func templateRules(tb testing.TB) []*rule {
	var out []*rule
	for _, r := range screen().rules {
		if r.tmpl != nil {
			r.compile()
			r.tmpl.once.Do(r.tmpl.read)
			out = append(out, r)
		}
	}
	return out
}

// TestTemplatesRead: every keyword-assignment rule is read as the
// template, so none runs its expression on every window. A rule set
// regenerated with another spelling fails here, not only in time.
func TestTemplatesRead(t *testing.T) {
	read := map[string]bool{}
	// Three are not: a keyword of any character (MailchimpSDK.initialize)
	// or with an operator in it (new-york-times,), and a rule with an
	// in-word alternative besides the template.
	unread := map[string]bool{"mailchimp-api-key": true, "nytimes-access-token": true, "atlassian-api-token": true}
	for _, r := range templateRules(t) {
		if !r.tmpl.ok && !unread[r.spec.id] {
			t.Errorf("%s: the template's keyword %q or value %q was not read", r.spec.id, r.tmpl.kwSrc, r.tmpl.valSrc)
		}
		read[r.spec.id] = true
	}
	for _, r := range screen().rules {
		if r.shape == assigned && !read[r.spec.id] && !unread[r.spec.id] {
			t.Errorf("%s is not spelled as the template: %s", r.spec.id, r.spec.regex)
		}
	}
	for _, r := range templateRules(t) {
		if r.spec.id == "generic-api-key" && (!r.tmpl.ok || r.tmpl.kwMax != 10 || r.tmpl.valMin != 10) {
			t.Errorf("generic-api-key: read %v, longest keyword %d, shortest value %d; want 10 and 10", r.tmpl.ok, r.tmpl.kwMax, r.tmpl.valMin)
		}
	}
}

// templateMatch writes a match of r's template with every part drawn at
// random from what the template allows, in text of other bytes.
func templateMatch(r *rule, rnd *rand.Rand) string {
	pick := func(set string, lo, hi int) string {
		var b strings.Builder
		for n := lo + rnd.Intn(hi-lo+1); n > 0; n-- {
			b.WriteByte(set[rnd.Intn(len(set))])
		}
		return b.String()
	}
	part := func(src string) string {
		re, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			panic(err)
		}
		return sample(re.Simplify(), rnd, rnd.Intn(30))
	}
	const word = "_" + alnum
	ops := []string{"=", ">", ":=", "::=", ":::=", "||", ":", "=>", "?=", ","}
	ends := []string{"`", "'", "\"", " ", "\t", "\n", ";", `\n`, `\r`, ",", ")", ""}
	end := ends[rnd.Intn(len(ends))]
	other := func() string { return pick(word+" \t\r\n.-=:>|?,'\"`;\\\x00{}()[]$%", 0, 60) }
	// The template's second spelling folds the keyword's case only.
	valFlags := "(?:"
	if strings.HasPrefix(r.spec.regex, "(?i)") {
		valFlags = "(?i:"
	}
	s := pick(word+".-", 0, 50) + part("(?i:"+r.tmpl.kwSrc+")") + pick(word+" \t.-", 0, 20) + pick(" \t\n\f\r'\"", 0, 3) +
		ops[rnd.Intn(len(ops))] + pick("`'\" \t\n\f\r=", 0, 5) + part(valFlags+r.tmpl.valSrc+")") + end
	if end == "" {
		return other() + s
	}
	return other() + s + other()
}

// TestTemplateMayLetsMatchesThrough: may never holds back a text the
// rule's expression matches in, on generated matches of every part's
// range, for every rule.
func TestTemplateMayLetsMatchesThrough(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	for _, r := range templateRules(t) {
		matched := 0
		for range 1000 {
			s := templateMatch(r, rnd)
			if !r.re.MatchString(s) {
				continue
			}
			matched++
			if !r.tmpl.may(s) {
				t.Fatalf("%s: may holds back %q, which the expression matches", r.spec.id, s)
			}
		}
		if matched < 300 {
			t.Errorf("%s: only %d of the generated texts were matches", r.spec.id, matched)
		}
	}
}

// FuzzTemplateMay: on any text, each template's may lets through every
// text its rule's expression matches in.
func FuzzTemplateMay(f *testing.F) {
	rules := templateRules(f)
	rnd := rand.New(rand.NewSource(2))
	for _, r := range rules {
		f.Add(templateMatch(r, rnd))
	}
	for _, s := range agreementSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range rules {
			if !r.tmpl.may(s) && r.re.MatchString(s) {
				t.Fatalf("%s: may holds back %q, which the expression matches", r.spec.id, s)
			}
		}
	})
}

// TestTemplateOpsAsWritten: templateOpStart and templateOpLengths spell
// rulekit.TemplateOps by hand; every string of up to four operator bytes
// (and others) must give the lengths the expression matches, so an
// operator added to the template fails here instead of being missed by
// may.
func TestTemplateOpsAsWritten(t *testing.T) {
	op := regexp.MustCompile(`^(?:` + rulekit.TemplateOps + `)$`)
	const alphabet = "=>:|?,<-!~&a \t"
	var walk func(s string)
	walk = func(s string) {
		if len(s) > 0 {
			var want uint
			for n := 1; n <= len(s); n++ {
				if op.MatchString(s[:n]) {
					want |= 1 << n
				}
			}
			got := uint(0)
			if templateOpStart[s[0]] {
				got = templateOpLengths(s, 0)
			}
			if got != want {
				t.Fatalf("operators at %q: lengths %b, the expression matches %b", s, got, want)
			}
		}
		if len(s) < 4 {
			for i := 0; i < len(alphabet); i++ {
				walk(s + alphabet[i:i+1])
			}
		}
	}
	walk("")
}

// TestTemplateWithFoldedLiteral: rulekit.MinLen counts a literal's bytes,
// and K (the Kelvin sign, three bytes) is k under case folding. The
// parser keeps a folded literal as its smallest fold (ASCII K), so a
// value spelled with one still counts one byte and may lets its ASCII
// matches through.
func TestTemplateWithFoldedLiteral(t *testing.T) {
	f := templateForms[0]
	pattern := f.pre + "key" + f.mid + "\u212a[a-z]{3}" + templateEnd
	p := newTemplate(pattern)
	if p == nil {
		t.Fatal("the synthetic rule is not spelled as the template")
	}
	for _, s := range []string{"key = kabc", "key: Kxyz"} {
		if !regexp.MustCompile(pattern).MatchString(s) {
			t.Fatalf("the expression does not match %q", s)
		}
		if !p.may(s) {
			t.Fatalf("may(%q) is false, but the expression matches it", s)
		}
	}
	if !p.ok || p.valMin != 4 {
		t.Fatalf("read %v, shortest value %d; want read, 4", p.ok, p.valMin)
	}
}
