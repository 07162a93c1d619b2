package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The screen's fast paths must change no outcome: each is held to the
// verbatim reference in screenref_test.go, on every text the other tests
// know and on what the fuzzer makes of them.

// agrees reports the first part of the screen that decides s otherwise
// than the reference, or "".
func agrees(s string) string {
	if Credential(s) != refCredential(s) {
		return "Credential"
	}
	if decode(s) != refDecode(s) {
		return "decode"
	}
	if hasInWordMarkup(s) && !refHasInWordMarkup(s) && !inWordMarkup.MatchString(s) {
		// The filter may only let fewer texts through to the expression,
		// and never hold back one the expression changes.
		return "hasInWordMarkup"
	}
	if !hasInWordMarkup(s) && inWordMarkup.MatchString(s) {
		return "hasInWordMarkup holds back"
	}
	t := securityText(s)
	if userinfo(t) != refUserinfo(t) {
		return "userinfo"
	}
	for _, v := range []string{s, t} {
		j, blank := joinSplit(v, false)
		jb, _ := joinSplit(v, true)
		if j != refJoinSplit(v, false) || jb != refJoinSplit(v, true) || !blank && jb != j {
			return "joinSplit"
		}
	}
	if screen().finds(t) != screen().refFinds(t) {
		return "finds"
	}
	for _, n := range []int{11, 12, 15, 16, 17, 24} {
		for stop := 0; stop < 3; stop++ {
			var got, want [][2]int
			collect := func(out *[][2]int) func(a, b int) bool {
				return func(a, b int) bool {
					*out = append(*out, [2]int{a, b})
					return stop > 0 && len(*out) == stop
				}
			}
			forLongWords(s, n, collect(&got))
			refForLongWords(s, n, collect(&want))
			if len(got) != len(want) {
				return "forLongWords"
			}
			for i := range got {
				if got[i] != want[i] {
					return "forLongWords"
				}
			}
		}
	}
	return ""
}

func agreementSeeds(t testing.TB) []string {
	seeds := []string{
		"ghp*_*" + strings.Repeat("a1", 18) + " and a`b`c, x<b>y</b>z <!-- c -->w",
		"see https://user:hunter2@example.com/x and\ngit:pw@host:repo\n{{mysql://u:p@h/db}}",
		"a*<b>c**d`e`f\nprivate\\_key = `x`\n\u00e9*\u00e9 \u4e2d`\u6587`\u5b57",
		strings.Repeat("abcdefgh", 5) + " " + strings.Repeat("x", 15) + "\n" + strings.Repeat("y", 16) + " z",
		"a:b@c:d\n;e:f@g:h i:j@k:l\n(m:n@o:p",
		strings.Repeat("k", 31), strings.Repeat("a b", 9),
		// Outside ASCII: look-alike letters and dashes, bidi controls,
		// full-width forms, marks, CRLF and NUL around keys and markup.
		"\u0433h\u0440_" + strings.Repeat("\u0430", 36) + "\r\n\u202eghp_\u202c" + strings.Repeat("b", 36) + "\x00",
		"\u2010\u2011\u2013\u2212\u2012BEGIN RSA PRIVATE KEY\u2014\u2015\u2500\u2501\u2212",
		"\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44\uff1d\uff48\uff55\uff4e\uff54\uff45\uff52\uff12",
		"\u5bc6\u7801\uff1a`ghp_" + strings.Repeat("c", 36) + "`\u3002 \u043f\u0430\u0440\u043e\u043b\u044c: `x`.",
		"a\u0301*\u0301b `t`\u00a0:\u2009<i>k</i>\u0661 \u200bghp\u200d_" + strings.Repeat("d", 36),
		strings.Repeat("\u4e2d\u6587`\u5b57`\u3002 token = ", 400),
	}
	for _, unit := range []string{"-----BEGIN x\n", "a:b@", "https://a:{{b}}@", "a:<p>@h:", "password=x{{",
		"curl -H a:b -u c:d ", "AKIA\n", "ghp_1\n", `\x67\u0067%5F&#95;\_`, "a*b<!--c<b>d`", "| password | x |\n",
		"glpat-x\n  ", "_x_**", "machine h\r\nlogin u\r\npassword hunter2Xy\r\n", "1234567\n", "12345678\n",
		"API_KEY-1\n\n  ghp_", "A\x00B-C_D9\n", "\u00e9\n\u00e9\xff\n", "TOKEN_A\n> \n", "password |\n", "a*.b c*<b>d ", "000*.00 00*<A0>0\n", "`a`.", "：`b`。", "\u00e9`\u00e9`", "a`<b>c", "\xe4`\xb8", "x*\xff", "\u0661*\u0662", "‐‐‐‐‐BEGIN ", "machine h login u password ", "sk_live_"} {
		seeds = append(seeds, strings.Repeat(unit, 600/len(unit)+1))
	}
	for _, v := range samples(t) {
		seeds = append(seeds, "token = "+v, "`"+v[:len(v)/2]+"`"+v[len(v)/2:])
	}
	pages, _ := filepath.Glob("testdata/*.md")
	more, _ := filepath.Glob("testdata/*/*.md")
	for _, p := range append(pages, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, string(b))
	}
	return seeds
}

// TestScreenAgreesOnCorpora holds the screen to the reference on every
// text in testdata, on each paragraph of them, and on the shared tldr
// pages (every language) when they are there.
func TestScreenAgreesOnCorpora(t *testing.T) {
	texts := agreementSeeds(t)
	for _, up := range []string{"../..", "../../.."} {
		root := filepath.Join(up, "shared", "corpora", "tldr")
		if !exists(filepath.Join(root, "pages")) {
			continue
		}
		// Every 20th page by default (the race detector makes the full
		// set take minutes); VIVARY_SCREEN_AGREE_ALL=1 reads them all.
		step := 20
		if os.Getenv("VIVARY_SCREEN_AGREE_ALL") != "" {
			step = 1
		}
		k := 0
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return nil
			}
			if k++; k%step == 0 {
				b, err := os.ReadFile(p)
				if err == nil {
					texts = append(texts, string(b))
				}
			}
			return nil
		})
		break
	}
	for _, s := range texts {
		for _, part := range append([]string{s}, strings.Split(s, "\n\n")...) {
			if what := agrees(part); what != "" {
				t.Fatalf("%s differs from the reference on %q", what, part)
			}
		}
	}
}

// FuzzScreenAgrees: on any text, every changed part of the screen decides
// as the reference does.
func FuzzScreenAgrees(f *testing.F) {
	for _, s := range agreementSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if what := agrees(s); what != "" {
			t.Errorf("%s differs from the reference on %q", what, s)
		}
	})
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// BenchmarkScreenAgainstReference runs the screen and its reference over
// the Markdown of the folders in VIVARY_SCREEN_DIRS (":"-separated), for
// a before/after figure from one binary. Each round screens every text
// with both, in turn, on one locked thread; it reports the least thread
// CPU time of each over the rounds (which a busy machine stretches far
// less than the wall clock) and their ratio, ref/screen.
func BenchmarkScreenAgainstReference(b *testing.B) {
	texts := screenDirs(b)
	compareCost(b, texts, refCredential, Credential)
}

// screenDirs reads the Markdown of the folders in VIVARY_SCREEN_DIRS, or
// skips the benchmark.
func screenDirs(b *testing.B) []string {
	var texts []string
	for _, d := range filepath.SplitList(os.Getenv("VIVARY_SCREEN_DIRS")) {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".md") {
				if t, err := os.ReadFile(p); err == nil {
					texts = append(texts, string(t))
				}
			}
			return nil
		})
	}
	if len(texts) == 0 {
		b.Skip("set VIVARY_SCREEN_DIRS")
	}
	return texts
}

// compareCost runs ref and f over every text in turn, each round, on one
// locked thread, and reports the least thread CPU time of each and their
// ratio.
func compareCost(b *testing.B, texts []string, ref, f func(string) bool) {
	lockThread()
	defer unlockThread()
	cost := func(f func(string) bool) time.Duration {
		start := threadCPU()
		for _, t := range texts {
			f(t)
		}
		return threadCPU() - start
	}
	best := [2]time.Duration{1 << 62, 1 << 62}
	for b.Loop() {
		best[0] = min(best[0], cost(ref))
		best[1] = min(best[1], cost(f))
	}
	b.ReportMetric(best[0].Seconds()*1e3, "ref-cpu-ms")
	b.ReportMetric(best[1].Seconds()*1e3, "screen-cpu-ms")
	b.ReportMetric(float64(best[0])/float64(best[1]), "ref/screen")
}

// BenchmarkWordGateAgainstReference is the word gate alone, as
// BenchmarkScreenAgainstReference measures the screen.
func BenchmarkWordGateAgainstReference(b *testing.B) {
	texts := screenDirs(b)
	none := func(a, b int) bool { return false }
	compareCost(b, texts, func(t string) bool { refForLongWords(t, 16, none); return false },
		func(t string) bool { forLongWords(t, 16, none); return false })
}

// TestReadAsEveryRune: decode's table reads every code point as the
// lookups it keeps do.
func TestReadAsEveryRune(t *testing.T) {
	for r := rune(0); r <= 0x10ffff; r++ {
		want := r
		if r > 0x7f {
			want = lookUpReading(r)
		}
		if got := readAs(r); got != want {
			t.Fatalf("readAs(U+%04X) = %U, the lookups %U", r, got, want)
		}
	}
}

// BenchmarkCredentialDirs: the screen alone over VIVARY_SCREEN_DIRS.
func BenchmarkCredentialDirs(b *testing.B) {
	texts := screenDirs(b)
	lockThread()
	defer unlockThread()
	start := threadCPU()
	for b.Loop() {
		for _, t := range texts {
			Credential(t)
		}
	}
	b.ReportMetric(float64(threadCPU()-start)/1e6/float64(b.N), "cpu-ms/op")
}

// Lines joined over a break, with and without a blank line, decide as the
// reference: a .netrc password or a key's start on the first, last or
// only line, before a CR, a NUL or a byte outside ASCII, quoted or listed,
// at every offset.
func TestLineJoinsAgree(t *testing.T) {
	lines := []string{"machine host login me password s3cr3tPassw0rd", "AWS_SECRET_ACCESS_KEY-", "ghp_ABCDEF",
		"x", "", "  ", "|", "password", "default login u password p4ss-w0rd!", "\u00e9GITHUB_TOKEN", "a\x00GHP_X1"}
	for pad := 0; pad < 17; pad++ {
		for _, a := range lines {
			for _, b := range lines {
				for _, sep := range []string{"\n", "\r\n", "\n\n", " \t|\n", "\n> ", "\n\n  - "} {
					s := strings.Repeat(" ", pad) + a + sep + b
					for _, v := range []string{s, s + "\n", "machine h\n" + s} {
						if what := agrees(v); what != "" {
							t.Fatalf("%s differs from the reference on %q", what, v)
						}
					}
				}
			}
		}
	}
	// And the screen's answer, not only its agreement: a .netrc password
	// on the last line, ending the text at every offset, is found.
	for pad := 0; pad < 17; pad++ {
		s := strings.Repeat("x", pad) + "\nmachine example.com login me password Zq9vT4mPw2Lk"
		if !Credential(s) || !Credential(s+"\r\n") {
			t.Fatalf("the .netrc password in %q was not found", s)
		}
	}
}
