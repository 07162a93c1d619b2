package snapshot

import (
	"fmt"
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
	entries := func(n int, changed ...int) [][]byte {
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
	n := 3*markEvery + 17
	base := entries(n)
	prev := snap(true)
	var err error
	if prev.Fingerprint, prev.hashed, err = prev.fingerprint(base, nil); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		docs     [][]byte
		complete bool
	}{
		"first":          {entries(n, 0), true},
		"at a mark":      {entries(n, 2*markEvery), true},
		"after a mark":   {entries(n, 2*markEvery+1), true},
		"last":           {entries(n, n-1), true},
		"unchanged":      {base, true},
		"one more":       {entries(n + 1), true},
		"one fewer":      {entries(2 * markEvery), true},
		"another head":   {entries(n, n-1), false},
		"shared entries": {append(append([][]byte(nil), base[:n-1]...), []byte(`{}`)), true},
	}
	for name, c := range cases {
		got, _, err := snap(c.complete).fingerprint(c.docs, prev)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := snap(c.complete).fingerprint(c.docs, nil)
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
