package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/policy"
)

// preparedOut is what a Prepared tells the index: each term with its
// counts per field, in the order the terms first appear, and the lengths.
type preparedOut struct {
	terms []string
	tfs   [][nFields]uint8
	lens  [nFields]int32
}

func (p *Prepared) out() preparedOut {
	o := preparedOut{lens: p.lens}
	p.each(func(term []byte, tf [nFields]uint8) {
		o.terms = append(o.terms, string(term))
		o.tfs = append(o.tfs, tf)
	})
	return o
}

// refPrepared counts d's terms as prepareFor does, with the reference
// tokenizer and a map.
func refPrepared(d *graph.Document, text string, focus *Focus) preparedOut {
	var o preparedOut
	at := map[string]int{}
	// add counts text's terms in field f, and its length there unless
	// uncounted (a heading's words, counted once more).
	add := func(f int, text string, uncounted ...bool) {
		refScan(text, func(t token) {
			if len(uncounted) == 0 {
				o.lens[f]++
			}
			term := string(t.term)
			if focus != nil && !focus.terms[term] && !refContinues(focus, term) {
				return
			}
			i, ok := at[term]
			if !ok {
				i = len(o.terms)
				at[term] = i
				o.terms = append(o.terms, term)
				o.tfs = append(o.tfs, [nFields]uint8{})
			}
			if o.tfs[i][f] < 255 {
				o.tfs[i][f]++
			}
		})
	}
	add(fTitle, d.ID)
	add(fTitle, d.Title)
	for _, f := range d.FM.Fields {
		add(fMeta, graph.Stringify(f.Value))
	}
	add(fPath, d.Path)
	add(fMeta, lead(body(text)))
	add(fBody, body(text))
	add(fBody, headings(body(text)), true)
	return o
}

// refContinues reports whether term continues one of focus's prefixable
// question terms.
func refContinues(focus *Focus, term string) bool {
	for _, ts := range focus.prefixes {
		for _, t := range ts {
			if strings.HasPrefix(term, t) && len(term) > len(t) && strings.Trim(term[len(t):], "abcdefghijklmnopqrstuvwxyz") == "" {
				return true
			}
		}
	}
	return false
}

func checkPrepared(t *testing.T, text, question string) {
	t.Helper()
	d := graph.Analyze(&policy.Config{AllowUntyped: true}, "notes/n.md", "ws", text, 1, 1)
	focuses := []*Focus{nil}
	if question != "" {
		focuses = append(focuses, FocusOn(question))
	}
	for _, focus := range focuses {
		got, want := prepareFor(d, text, focus).out(), refPrepared(d, text, focus)
		if !slices.Equal(got.terms, want.terms) || !slices.Equal(got.tfs, want.tfs) || got.lens != want.lens {
			t.Fatalf("prepare(%.200q), focus %v:\n got %v %v %v\nwant %v %v %v",
				text, focus != nil, got.terms, got.tfs, got.lens, want.terms, want.tfs, want.lens)
		}
	}
}

// A document's terms, counts and lengths are what the reference tokenizer
// counts, for small notes and for notes with more distinct terms than a
// worker keeps room for between documents, one after another.
func TestPrepareCountsAsTheReference(t *testing.T) {
	var many strings.Builder
	for i := range 3 * maxKeptSlots {
		fmt.Fprintf(&many, "w%d term-%d ", i, i%97)
	}
	for _, text := range append(slices.Clone(scanSeeds),
		"---\ntitle: \"Tar [c]reate\"\ntags: [archive, tar.gz]\n---\n# Tar\n\nCreate archives, create files: tar -czf DEC-0054.\n",
		strings.Repeat("file files filed filing ", 200),
		many.String(),
		"after the big one, a small note with tar",
	) {
		checkPrepared(t, text, "how do I create a tar.gz archive of files for DEC-0054?")
	}
	// A focused pass only counts words that cannot start a question's
	// term, and compounds whose first word cannot: the words of a
	// compound it may look for are still read, whatever they start with.
	for _, text := range []string{
		"x-dec-0054 dec-0054 0054-dec foo-über über-foo Über [c]reate E[x]tract a.b.c tar.gz.x ztar.gz",
		"---\nid: DEC-0054\ntags: [foo-über, q-0054]\n---\n# Über DEC-0054\n\nzz-0054-dec über-dec-0054 x9-y8 é-dec",
	} {
		for _, q := range []string{"dec-0054", "0054", "über foo", "create extract", "tar.gz", "dec", "y8 x9-y8", "é-dec"} {
			checkPrepared(t, text, q)
		}
	}
}

func FuzzPrepareAgrees(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add(s, "create archive files")
	}
	f.Add("---\nid: DEC-0054\ntags: [a-b, c]\n---\n# T\n\nx y-z", "dec-0054 y z")
	f.Fuzz(func(t *testing.T, text, question string) {
		checkPrepared(t, text, question)
	})
}
