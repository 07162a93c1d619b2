package snapshot

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/policy"
)

// TestFingerprintHashedOnIsTheSame checks that a fingerprint hashed on
// from an earlier snapshot's state is the one hashed from the start, for
// a change at the start, inside, at the end, a document more or fewer, and
// another head (complete flipped).
func TestFingerprintHashedOnIsTheSame(t *testing.T) {
	docsOf := func(n int, changed ...int) [][]byte {
		docs := make([][]byte, n)
		for i := range docs {
			docs[i] = fmt.Appendf(nil, `{"content":"%064d","path":"n%05d.md"}`, i, i)
		}
		for _, c := range changed {
			docs[c] = fmt.Appendf(nil, `{"content":"%064d","path":"n%05d.md"}`, c+1, c)
		}
		return docs
	}
	snap := func(complete bool) *Snapshot {
		return &Snapshot{Admission: &policy.Admission{Fingerprint: "sha256:x"}, Complete: complete}
	}
	n := 3*chunk + 17
	base := docsOf(n)
	prev := snap(true)
	var err error
	if prev.Fingerprint, prev.hashed, err = prev.fingerprint(context.Background(), entriesOf(base), nil); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		docs     [][]byte
		complete bool
	}{
		"first":          {docsOf(n, 0), true},
		"at a mark":      {docsOf(n, 2*chunk), true},
		"after a mark":   {docsOf(n, 2*chunk+1), true},
		"last":           {docsOf(n, n-1), true},
		"unchanged":      {base, true},
		"one more":       {docsOf(n + 1), true},
		"one fewer":      {docsOf(2 * chunk), true},
		"another head":   {docsOf(n, n-1), false},
		"shared entries": {append(append([][]byte(nil), base[:n-1]...), []byte(`{}`)), true},
	}
	// An edit's encoding is prev's with those entries replaced, its
	// pieces shared where none changed.
	edited := map[string][]int{"first of two": {0, 1}, "edited at a mark": {chunk, 2 * chunk}, "edited last": {n - 1}, "edited inside": {chunk + 3}}
	for name, at := range edited {
		docs := docsOf(n, at...)
		by := make([][]byte, len(at))
		for k, i := range at {
			by[k] = docs[i]
		}
		list := prev.hashed.list.with(at, by)
		if want := entriesOf(docs); fmt.Sprint(list) != fmt.Sprint(want) {
			t.Fatalf("%s: replaced %q, made %q", name, list.pieces, want.pieces)
		}
		for c := range list.pieces {
			shared := &list.pieces[c][0] == &prev.hashed.list.pieces[c][0]
			if changed := slices.ContainsFunc(at, func(i int) bool { return i/chunk == c }); shared == changed {
				t.Errorf("%s: piece %d shared %v, holds a change %v", name, c, shared, changed)
			}
		}
		cases[name] = struct {
			docs     [][]byte
			complete bool
		}{docs, true}
	}
	for name, c := range cases {
		list := entriesOf(c.docs)
		if at, ok := edited[name]; ok {
			by := make([][]byte, len(at))
			for k, i := range at {
				by[k] = c.docs[i]
			}
			list = prev.hashed.list.with(at, by)
		}
		c := struct {
			docs     [][]byte
			list     *entries
			complete bool
		}{c.docs, list, c.complete}
		got, _, err := snap(c.complete).fingerprint(context.Background(), c.list, prev)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := snap(c.complete).fingerprint(context.Background(), entriesOf(c.docs), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: hashed on %s, from the start %s", name, got, want)
		}
		if name == "unchanged" && got != prev.Fingerprint {
			t.Errorf("unchanged: %s, was %s", got, prev.Fingerprint)
		}
	}
}

// A document's entry in the fingerprint is its canonical JSON, whatever
// its path holds.
func FuzzDocJSONIsCanonical(f *testing.F) {
	for _, p := range []string{"notes/a.md", `we"ird\.md`, "tab\t.md", "é.md", "\x7f.md", "a b/c.md", ""} {
		f.Add(p, "0f3a")
	}
	f.Fuzz(func(t *testing.T, path, digest string) {
		d := &graph.Document{Path: path, Digest: digest}
		got, err := docJSON(d)
		want, werr := canon.Compact(map[string]string{"path": path, "content": digest})
		if (err != nil) != (werr != nil) || string(got) != string(want) {
			t.Fatalf("docJSON(%q, %q) = %s, %v; canon writes %s, %v", path, digest, got, err, want, werr)
		}
	})
}
