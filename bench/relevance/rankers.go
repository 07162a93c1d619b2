package main

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// lexicon is every Markdown file of a tree as whole-word, case-insensitive
// counts: what the two reference rankings read.
type lexicon struct {
	paths  []string
	counts []map[string]int
	lens   []int
	df     map[string]int
	avgLen float64
}

var wordRe = regexp.MustCompile(`[a-z0-9]+`)

// newLexicon reads the Markdown files under root whose relative path keep
// accepts.
func newLexicon(root string, keep func(rel string) bool) (*lexicon, error) {
	b := &lexicon{df: map[string]int{}}
	total := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if !keep(filepath.ToSlash(rel)) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		c := map[string]int{}
		words := wordRe.FindAllString(strings.ToLower(string(data)), -1)
		for _, w := range words {
			c[w]++
		}
		for w := range c {
			b.df[w]++
		}
		b.paths = append(b.paths, filepath.ToSlash(rel))
		b.counts = append(b.counts, c)
		b.lens = append(b.lens, len(words))
		total += len(words)
		return nil
	})
	b.avgLen = float64(total) / float64(max(len(b.paths), 1))
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

// baseline ranks by the sum over query terms of log(1+count) × ln(N/df),
// as a short ripgrep script would; ties go to the path.
func (b *lexicon) baseline(q string, k int, stop func(string) bool) []string {
	n := float64(len(b.paths))
	return b.rank(q, k, stop, func(i int, t string, c int) float64 {
		return math.Log(1+float64(c)) * math.Log(n/float64(b.df[t]))
	})
}

// bm25 is plain BM25 (k1 1.2, b 0.75) over each file's whole text: the
// second reference, what a search library does out of the box.
func (b *lexicon) bm25(q string, k int, stop func(string) bool) []string {
	n := float64(len(b.paths))
	const k1, bb = 1.2, 0.75
	return b.rank(q, k, stop, func(i int, t string, c int) float64 {
		df := float64(b.df[t])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		tf := float64(c)
		return idf * tf * (k1 + 1) / (tf + k1*(1-bb+bb*float64(b.lens[i])/b.avgLen))
	})
}

func (b *lexicon) rank(q string, k int, stop func(string) bool, score func(i int, t string, c int) float64) []string {
	var terms []string
	for _, w := range wordRe.FindAllString(strings.ToLower(q), -1) {
		if !stop(w) {
			terms = append(terms, w)
		}
	}
	type scored struct {
		path  string
		score float64
	}
	var out []scored
	for i, c := range b.counts {
		s := 0.0
		for _, t := range terms {
			if c[t] > 0 {
				s += score(i, t, c[t])
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
