// Command relevance measures how well vivary_query ranks answers: judged
// questions (natural-language and keyword) over a copy of the tldr pages
// (pages/common) and over a generated workspace with planted answers. It
// prints hit@1/3/10 and MRR@10 per corpus and style for vivary and, from
// the same run, a log-count × idf baseline (per query term, log(1+count)
// of its whole-word occurrences in the file times ln(N/df), summed, as a
// short ripgrep script would rank) with vivary's question stopwords and
// with the reference's 27 (base-27), and the share of hits without a
// snippet.
//
//	go run ./bench/relevance [-tldr DIR] [-notes N] [-v]
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/vivary-dev/vivary-go/internal/benchgen"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/search"
	"github.com/vivary-dev/vivary-go/workspace"
)

type style string

const (
	nl style = "natural-language"
	kw style = "keyword"
)

type question struct {
	style   style
	text    string
	answers []string // tldr: page names; planted: paths
}

func main() {
	tldr := flag.String("tldr", "", "the tldr pages/common folder (default: ../shared/corpora/tldr/pages/common beside the repository)")
	notes := flag.Int("notes", 2000, "generated notes around the planted answers")
	verbose := flag.Bool("v", false, "print every question's rank")
	flag.Parse()
	if *tldr == "" {
		*tldr = findTldr()
	}
	tmp, err := os.MkdirTemp("", "vivary-relevance-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)

	root := filepath.Join(tmp, "tldr")
	if err := tldrWorkspace(root, *tldr); err != nil {
		fail(err)
	}
	run("tldr pages/common", root, tldrQuestions, func(path string) string {
		return strings.TrimSuffix(filepath.Base(path), ".md")
	}, *verbose)

	root = filepath.Join(tmp, "planted")
	if err := benchgen.Write(root, *notes, 2000); err != nil {
		fail(err)
	}
	for rel, text := range planted {
		if err := write(root, rel, text); err != nil {
			fail(err)
		}
	}
	run(fmt.Sprintf("generated (%d notes) with planted answers", *notes), root, plantedQuestions, func(path string) string { return path }, *verbose)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "relevance:", err)
	os.Exit(1)
}

func findTldr() string {
	wd, _ := os.Getwd()
	for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "corpora", "tldr", "pages", "common")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		p = filepath.Join(filepath.Dir(d), "shared", "corpora", "tldr", "pages", "common")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	fail(fmt.Errorf("no tldr corpus found; pass -tldr"))
	return ""
}

func write(root, rel, content string) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// tldrWorkspace is a scaffolded workspace holding a copy of the pages.
func tldrWorkspace(root, pages string) error {
	for _, f := range scaffold.Files(filepath.Base(root), scaffold.DefaultPreset) {
		if err := write(root, f.Path, f.Content); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(pages)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(pages, e.Name()))
		if err != nil {
			return err
		}
		if err := write(root, "pages/common/"+e.Name(), string(b)); err != nil {
			return err
		}
	}
	return nil
}

type tally struct {
	n                  int
	hit1, hit3, hit10  int
	rr                 float64
	snippets, nullSnip int
}

func (t *tally) add(rank int) {
	t.n++
	if rank == 1 {
		t.hit1++
	}
	if rank >= 1 && rank <= 3 {
		t.hit3++
	}
	if rank >= 1 && rank <= 10 {
		t.hit10++
		t.rr += 1 / float64(rank)
	}
}

func (t *tally) String() string {
	n := float64(max(t.n, 1))
	return fmt.Sprintf("%3d  %.2f  %.2f  %.2f  %.3f", t.n, float64(t.hit1)/n, float64(t.hit3)/n, float64(t.hit10)/n, t.rr/n)
}

// rankOf is the 1-based rank of the first answer among results, or 0.
func rankOf(results []string, answers []string) int {
	for i, r := range results {
		for _, a := range answers {
			if r == a {
				return i + 1
			}
		}
	}
	return 0
}

func run(name, root string, qs []question, key func(path string) string, verbose bool) {
	ws, err := workspace.Bind(root)
	if err != nil {
		fail(err)
	}
	r := produce.NewReader(ws)
	ctx := context.Background()
	base, err := newBaseline(root)
	if err != nil {
		fail(err)
	}
	mine, theirs, ref := map[style]*tally{}, map[style]*tally{}, map[style]*tally{}
	var took []time.Duration
	for _, q := range qs {
		if mine[q.style] == nil {
			mine[q.style], theirs[q.style], ref[q.style] = &tally{}, &tally{}, &tally{}
		}
		start := time.Now()
		res, err := r.Query(ctx, produce.QueryArgs{Text: q.text, Limit: 10, SnippetChars: 160})
		if err != nil {
			fail(fmt.Errorf("%q: %v", q.text, err))
		}
		took = append(took, time.Since(start))
		var got []string
		for _, h := range res.Results {
			got = append(got, key(h.Path))
			mine[q.style].snippets++
			if h.Snippet == nil {
				mine[q.style].nullSnip++
			}
		}
		rank := rankOf(got, q.answers)
		mine[q.style].add(rank)
		var bgot []string
		for _, p := range base.rank(q.text, 10, search.Stopword) {
			bgot = append(bgot, key(p))
		}
		brank := rankOf(bgot, q.answers)
		theirs[q.style].add(brank)
		bgot = bgot[:0]
		for _, p := range base.rank(q.text, 10, func(w string) bool { return refStopwords[w] }) {
			bgot = append(bgot, key(p))
		}
		ref[q.style].add(rankOf(bgot, q.answers))
		if verbose {
			top := ""
			if len(got) > 0 {
				top = got[0]
			}
			fmt.Printf("  %-9s vivary %2d  baseline %2d  %-60q top: %s\n", q.style[:min(len(q.style), 9)], rank, brank, q.text, top)
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	fmt.Printf("\n%s (warm query p50 %v in process)\n", name, took[len(took)/2].Round(10*time.Microsecond))
	fmt.Printf("  %-17s %-9s   n  hit@1 hit@3 hit@10 MRR@10  null snippets\n", "style", "system")
	for _, s := range []style{nl, kw} {
		if mine[s] == nil {
			continue
		}
		m := mine[s]
		fmt.Printf("  %-17s %-9s %s  %d/%d\n", s, "vivary", m, m.nullSnip, m.snippets)
		fmt.Printf("  %-17s %-9s %s\n", s, "baseline", theirs[s])
		fmt.Printf("  %-17s %-9s %s\n", s, "base-27", ref[s])
		if theirs[s].rr > 0 && ref[s].rr > 0 {
			fmt.Printf("  %-17s MRR@10 vs baseline: %+.0f%%, vs base-27: %+.0f%%\n", s, 100*(m.rr/theirs[s].rr-1), 100*(m.rr/ref[s].rr-1))
		}
	}
}

// baseline ranks the Markdown files of a tree by the sum over query terms
// of log(1+count) × ln(N/df), counting whole-word, case-insensitive
// occurrences in the whole file; ties go to the path.
type baseline struct {
	paths  []string
	counts []map[string]int
	df     map[string]int
}

var wordRe = regexp.MustCompile(`[a-z0-9]+`)

func newBaseline(root string) (*baseline, error) {
	b := &baseline{df: map[string]int{}}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		c := map[string]int{}
		for _, w := range wordRe.FindAllString(strings.ToLower(string(data)), -1) {
			c[w]++
		}
		for w := range c {
			b.df[w]++
		}
		b.paths = append(b.paths, filepath.ToSlash(rel))
		b.counts = append(b.counts, c)
		return nil
	})
	return b, err
}

// refStopwords are the reference's 27 (base-27 in the report); the
// baseline proper drops the same question stopwords vivary does, so that
// comparison is of the ranking alone.
var refStopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be by do does for from how i in is it of on or our the this to we what where which who why") {
		refStopwords[w] = true
	}
}

func (b *baseline) rank(q string, k int, stop func(string) bool) []string {
	var terms []string
	for _, w := range wordRe.FindAllString(strings.ToLower(q), -1) {
		if !stop(w) {
			terms = append(terms, w)
		}
	}
	n := float64(len(b.paths))
	type scored struct {
		path  string
		score float64
	}
	var out []scored
	for i, c := range b.counts {
		s := 0.0
		for _, t := range terms {
			if c[t] > 0 {
				s += math.Log(1+float64(c[t])) * math.Log(n/float64(b.df[t]))
			}
		}
		if s > 0 {
			out = append(out, scored{b.paths[i], s})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].path < out[j].path
	})
	var paths []string
	for i := 0; i < len(out) && i < k; i++ {
		paths = append(paths, out[i].path)
	}
	return paths
}
