package search

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Counting reads a text as scan does: as many tokens, whatever the text.
func checkCount(t *testing.T, s string) {
	t.Helper()
	want := int32(0)
	scan(s, func(token) { want++ })
	n, ok := countTerms(s)
	if ok && int32(n) != want {
		t.Fatalf("countTerms(%q) = %d, scan hands out %d", s, n, want)
	}
	if n2, low, ok2 := countLower(s, []byte{}); ok2 != ok || n2 != n || ok && string(low) != strings.ToLower(s) {
		t.Fatalf("countLower(%q) = %d, %q, %v; countTerms %d, %v", s, n2, low, ok2, n, ok)
	}
	if ascii(s) && !strings.ContainsAny(s, "[]") && !ok {
		t.Fatalf("countTerms(%q) does not count a text of ASCII without brackets", s)
	}
}

var countSeeds = []string{
	"", "a", "a b", "a-b", "a--b", "a-b-c d.e f_g", "-a-", "a.", ".a", "a. b", "x9-y8", "file.txt.",
	"abcdefg-hijklmn-opq rst", "1234567-8 a", "aaaaaaa-", "aaaaaaaa-b", "aaaaaaa-bbbbbbbb-c",
	"a-b c-d e", "tar.gz.x ztar.gz", "DEC-0054 dec_0054", "a\tb\nc", "a-\nb", "a -b", "a- b",
	"[c]reate", "E[x]tract", "über-foo", "a-é", "é-a", "\u212aelvin", "aaaaaaa\u212a",
}

func TestCountAgreesWithScan(t *testing.T) {
	for _, s := range append(slices.Clone(scanSeeds), countSeeds...) {
		checkCount(t, s)
	}
	// Every split of a long text across the eight-byte chunks.
	long := "ab-cd e.f_gh ij--kl mnopqrs-tuvwxyz0 1.2.3 x- -y z."
	for i := range long {
		checkCount(t, long[i:])
		checkCount(t, long[:i])
	}
}

// Texts of the bytes that matter, of every length across a few chunks.
func TestCountAgreesOnRandomTexts(t *testing.T) {
	const alphabet = "aZ9-._ ,/\n"
	r := rand.New(rand.NewPCG(28, 4))
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		checkCount(t, string(b))
	}
}

func FuzzCountAgrees(f *testing.F) {
	for _, s := range append(slices.Clone(scanSeeds), countSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkCount(t, s) })
}

// A focused pass counts a note that cannot hold the question's terms
// without reading its words, and still finds the terms of one that holds
// them only after lowering, stemming, joining or reading through brackets.
func TestPrepareCountsNotesWithoutTheQuestion(t *testing.T) {
	texts := []string{
		"---\ntitle: T\n---\n# T\n\nnothing here but words-and-compounds, file.txt and x9-y8.\n",
		"---\ntitle: T\n---\n\nThe \u212aelvin scale; CREATED archives; [c]reated; E[x]tracts; DEC-0054; İstanbul.\n",
		"---\ntitle: T\n---\n\nstudies studied using quokkaprivacy QuokkaPrivacies tar.gz.x\n",
		"---\ntitle: T\n---\n\n" + strings.Repeat("lorem ipsum-dolor sit.amet ", 40) + "creating",
		// Lines countTerms counts beside lines it does not.
		"---\ntitle: T\n---\n\nplain creates and tar.gz\n- [c]reate an über-archive\nStudies of \u212aelvin\n\nplain again: dec-0054, quokka.\n[x]",
	}
	for _, text := range texts {
		for _, q := range []string{"kelvin", "create", "extract", "dec-0054", "istanbul", "study", "use", "quokka privacy", "tar.gz", "creat", "ipsum", "zzz", "über"} {
			checkPrepared(t, text, q)
		}
	}
}

// A name's key is its words joined by "-", whatever it holds.
func FuzzNameKeyAgrees(f *testing.F) {
	for _, s := range append(slices.Clone(scanSeeds), countSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := nameKey(s), strings.Join(words(s), "-"); got != want {
			t.Fatalf("nameKey(%q) = %q, words joined %q", s, got, want)
		}
	})
}
