// Command relevance measures how well vivary_query ranks answers: judged
// questions (natural-language and keyword) over public documentation sets
// others wrote (rclone's docs, the Docker CLI reference, the Node.js API
// docs, each read where it is installed), over a copy of the tldr pages
// (pages/common) and over a generated workspace with planted answers. For
// each corpus, question style and half it prints hit@1/3/10 and MRR@10 of
// vivary and, from the same run, of two references: a log-count × idf
// baseline (per query term, log(1+count) of its whole-word occurrences in
// the file times ln(N/df), summed, as a short ripgrep script would rank)
// and plain BM25 over the whole file, both with vivary's question
// stopwords; then vivary's paired differences to each with their standard
// error. A documentation set's questions are split in two by a hash of
// their text: the ranking is tuned on the tune half only, and the
// held-out half is the figure to trust.
//
// While tuning, -tune leaves the held-out halves out of every line, so
// that they stay unseen until the figures are reported. -v prints each
// question's rank, top three and judged answers, for the tune halves and
// the unsplit sets only: a held-out question read once is a question
// tuned on.
//
//	go run ./bench/relevance [-tldr DIR] [-notes N] [-only NAME] [-tune] [-v]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/vivary-dev/vivary-go/internal/benchgen"
	"github.com/vivary-dev/vivary-go/produce"
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
	answers []string // keys of the notes that answer, as the corpus's key function gives them
}

func main() {
	tldr := flag.String("tldr", "", "the tldr pages/common folder (default: ../shared/corpora/tldr/pages/common beside the repository)")
	notes := flag.Int("notes", 2000, "generated notes around the planted answers")
	only := flag.String("only", "", "measure only the corpora whose name holds this")
	verbose := flag.Bool("v", false, "print each question's rank and answers (never a held-out question's)")
	tuneOnly = flag.Bool("tune", false, "leave the held-out halves out (while tuning)")
	flag.Parse()
	tmp, err := os.MkdirTemp("", "vivary-relevance-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	wanted := func(name string) bool { return strings.Contains(name, *only) }

	for i, c := range corpora {
		if !wanted(c.name) {
			continue
		}
		src, err := c.locate()
		if err != nil {
			fmt.Printf("\n%s: skipped, %v\n", c.name, err)
			continue
		}
		root := filepath.Join(tmp, fmt.Sprint("corpus", i))
		if err := corpusWorkspace(root, src); err != nil {
			fail(err)
		}
		run(fmt.Sprintf("%s (%s; %s licence)", c.name, c.version, c.licence), root, c.questions, docKey, c.heldOut, *verbose)
	}

	if wanted("tldr pages/common") {
		if *tldr == "" {
			*tldr = findTldr()
		}
		if *tldr == "" {
			fmt.Println("\ntldr pages/common: skipped, no corpus found; pass -tldr")
		} else {
			root := filepath.Join(tmp, "tldr")
			if err := tldrWorkspace(root, *tldr); err != nil {
				fail(err)
			}
			run("tldr pages/common (questions written beside the ranking: no held-out half)", root, tldrQuestions, func(path string) string {
				return strings.TrimSuffix(filepath.Base(path), ".md")
			}, false, *verbose)
		}
	}

	if wanted("generated") {
		root := filepath.Join(tmp, "planted")
		if err := benchgen.Write(root, *notes, 2000); err != nil {
			fail(err)
		}
		for rel, text := range planted {
			if err := write(root, rel, text); err != nil {
				fail(err)
			}
		}
		run(fmt.Sprintf("generated (%d notes) with planted answers", *notes), root, plantedQuestions, func(path string) string { return path }, false, *verbose)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "relevance:", err)
	os.Exit(1)
}

func findTldr() string {
	wd, _ := os.Getwd()
	for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
		for _, p := range []string{
			filepath.Join(d, "shared", "corpora", "tldr", "pages", "common"),
			filepath.Join(filepath.Dir(d), "shared", "corpora", "tldr", "pages", "common"),
		} {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return ""
}

func write(root, rel, content string) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// tuneOnly leaves the held-out halves out of the report.
var tuneOnly *bool

// The systems compared, in the report's order.
var systems = []string{"vivary", "baseline", "bm25-body"}

// rr is the reciprocal rank of a 1-based rank within the first ten, else 0.
func rr(rank int) float64 {
	if rank >= 1 && rank <= 10 {
		return 1 / float64(rank)
	}
	return 0
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

// outcome is one question's rank under each system.
type outcome struct {
	q     question
	half  string
	ranks []int
}

func run(name, root string, qs []question, key func(path string) string, split, verbose bool) {
	ws, err := workspace.Bind(root)
	if err != nil {
		fail(err)
	}
	r := produce.NewReader(ws)
	ctx := context.Background()
	snap, err := r.Snapshot(ctx)
	if err != nil {
		fail(err)
	}
	served := map[string]bool{}
	for _, d := range snap.Docs {
		served[d.Path] = true
	}
	// The references rank the notes vivary serves, so that the comparison
	// is of the rankings alone: a note the privacy screen hides is no
	// one's answer, and a question whose every answer it hides is left out.
	var hidden []string
	lex, err := newLexicon(root, func(rel string) bool {
		if !served[rel] {
			hidden = append(hidden, key(rel))
		}
		return served[rel]
	})
	if err != nil {
		fail(err)
	}
	var unanswerable []string
	var kept []question
	for _, q := range qs {
		ok := false
		for _, p := range lex.paths {
			if slices.Contains(q.answers, key(p)) {
				ok = true
				break
			}
		}
		if ok {
			kept = append(kept, q)
		} else {
			unanswerable = append(unanswerable, fmt.Sprintf("%q", q.text))
		}
	}
	qs = kept
	var outs []outcome
	var took []time.Duration
	nullSnip, snippets := 0, 0
	for _, q := range qs {
		start := time.Now()
		res, err := r.Query(ctx, produce.QueryArgs{Text: q.text, Limit: 10, SnippetChars: 160})
		if err != nil {
			fail(fmt.Errorf("%q: %v", q.text, err))
		}
		took = append(took, time.Since(start))
		var got []string
		for _, h := range res.Results {
			got = append(got, key(h.Path))
			snippets++
			if h.Snippet == nil {
				nullSnip++
			}
		}
		keys := func(paths []string) []string {
			out := make([]string, len(paths))
			for i, p := range paths {
				out[i] = key(p)
			}
			return out
		}
		o := outcome{q: q, half: "all", ranks: []int{
			rankOf(got, q.answers),
			rankOf(keys(lex.baseline(q.text, 10, search.Stopword)), q.answers),
			rankOf(keys(lex.bm25(q.text, 10, search.Stopword)), q.answers),
		}}
		if split {
			o.half = halfOf(q)
		}
		if *tuneOnly && o.half == "held-out" {
			continue
		}
		outs = append(outs, o)
		if verbose && o.half != "held-out" {
			top := ""
			if len(got) > 0 {
				top = strings.Join(got[:min(3, len(got))], " ")
			}
			fmt.Printf("  %-8s %-4s vivary %2d  baseline %2d  bm25 %2d  %-62q top: %s  want: %s\n", o.half, q.style[:2], o.ranks[0], o.ranks[1], o.ranks[2], q.text, top, strings.Join(q.answers, " "))
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	fmt.Printf("\n%s\n  %d notes, warm query p50 %v in process, null snippets %d/%d\n", name, len(lex.paths), took[len(took)/2].Round(10*time.Microsecond), nullSnip, snippets)
	if len(hidden) > 0 {
		fmt.Printf("  %d more hidden by the privacy screen, for every system: %s\n", len(hidden), strings.Join(hidden, " "))
	}
	if len(unanswerable) > 0 {
		fmt.Printf("  left out, every answer hidden: %s\n", strings.Join(unanswerable, ", "))
	}
	fmt.Printf("  %-17s %-9s %-9s   n  hit@1 hit@3 hit@10 MRR@10\n", "style", "half", "system")
	for _, s := range []style{nl, kw} {
		for _, h := range []string{"tune", "held-out", "all"} {
			var group []outcome
			for _, o := range outs {
				if o.q.style == s && o.half == h {
					group = append(group, o)
				}
			}
			if len(group) == 0 {
				continue
			}
			label := h
			if h == "held-out" {
				label = "HELD-OUT"
			}
			for i, sys := range systems {
				fmt.Printf("  %-17s %-9s %-9s %s\n", s, label, sys, summary(group, i))
			}
			for i := 1; i < len(systems); i++ {
				fmt.Printf("  %-17s %-9s vs %-9s %s\n", "", "", systems[i], paired(group, i))
			}
		}
	}
}

// summary is n, hit@1, hit@3, hit@10 and MRR@10 of system i over group.
func summary(group []outcome, i int) string {
	var h1, h3, h10, mrr float64
	for _, o := range group {
		r := o.ranks[i]
		if r == 1 {
			h1++
		}
		if r >= 1 && r <= 3 {
			h3++
		}
		if r >= 1 && r <= 10 {
			h10++
		}
		mrr += rr(r)
	}
	n := float64(len(group))
	return fmt.Sprintf("%3d  %.2f  %.2f  %.2f   %.3f", len(group), h1/n, h3/n, h10/n, mrr/n)
}

// paired is vivary's mean difference to system i in MRR@10 and hit@10
// over the same questions, with the standard error of that mean; a
// difference is called a win or a loss only beyond two standard errors.
func paired(group []outcome, i int) string {
	hit := func(r int) float64 {
		if r >= 1 && r <= 10 {
			return 1
		}
		return 0
	}
	var out []string
	for _, m := range []struct {
		name string
		f    func(int) float64
	}{{"MRR@10", rr}, {"hit@10", hit}} {
		d := make([]float64, len(group))
		for j, o := range group {
			d[j] = m.f(o.ranks[0]) - m.f(o.ranks[i])
		}
		mean, se := meanSE(d)
		verdict := ""
		switch {
		case mean > 2*se && mean > 0:
			verdict = " win"
		case mean < -2*se && mean < 0:
			verdict = " LOSS"
		}
		out = append(out, fmt.Sprintf("Δ%s %+.3f ± %.3f%s", m.name, mean, se, verdict))
	}
	return strings.Join(out, "   ")
}

func meanSE(d []float64) (mean, se float64) {
	n := float64(len(d))
	for _, x := range d {
		mean += x
	}
	mean /= n
	if len(d) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}
