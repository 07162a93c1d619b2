package search

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/policy"
)

// BenchmarkPrepare is the tokenizing cost the read pass pays per note, on
// the tldr slice in guard's testdata.
func BenchmarkPrepare(b *testing.B) {
	pages, _ := filepath.Glob("../guard/testdata/tldr/*.md")
	var docs []*graph.Document
	var texts []string
	var size int64
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		size += int64(len(data))
		docs = append(docs, graph.Analyze(&policy.Config{}, "pages/"+filepath.Base(p), "ws", string(data), 1, 1))
		texts = append(texts, string(data))
	}
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		for i, d := range docs {
			prepare(d, texts[i])
		}
	}
}
