package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/workspace"
)

// profileEdits serves root as vivary-mcp does (a serving reader, the full
// index built by a second question), then writes runs edits of one note,
// each followed by a query, under a CPU profile written to out: what an
// edit's next answer still spends. The note is restored at the end.
func profileEdits(root, out string, runs int) error {
	// As vivary-mcp runs: collection under its soft memory limit is a
	// part of what an edit's allocations cost.
	debug.SetMemoryLimit(384 << 20)
	ws, err := workspace.Bind(root)
	if err != nil {
		return err
	}
	defer ws.Close()
	r := produce.NewServingReader(ws)
	defer r.Close()
	ctx := context.Background()
	ask := func(q string) (time.Duration, error) {
		t0 := time.Now()
		_, err := r.Query(ctx, produce.QueryArgs{Text: q, Limit: 10, SnippetChars: 160})
		return time.Since(t0), err
	}
	for _, q := range []string{"quokka privacy", "snapshot cache budget"} {
		if _, err := ask(q); err != nil {
			return err
		}
	}
	var warm, edited []time.Duration
	for i := range runs {
		d, err := ask(questions[i%len(questions)])
		if err != nil {
			return err
		}
		warm = append(warm, d)
	}
	_, _, edit := markdown(root)
	orig, err := os.ReadFile(edit)
	if err != nil {
		return err
	}
	defer os.WriteFile(edit, orig, 0o644)
	var before, after runtime.MemStats
	writeAllocs(out + ".allocs0")
	runtime.ReadMemStats(&before)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	for i := range runs {
		text := fmt.Sprintf("%s\nedited %d: quokka privacy %s\n", orig, i, strings.Repeat("bench ", i+1))
		if err := os.WriteFile(edit, []byte(text), 0o644); err != nil {
			pprof.StopCPUProfile()
			return err
		}
		d, err := ask(questions[i%len(questions)])
		if err != nil {
			pprof.StopCPUProfile()
			return err
		}
		edited = append(edited, d)
	}
	pprof.StopCPUProfile()
	runtime.ReadMemStats(&after)
	writeAllocs(out + ".allocs1")
	med := func(ds []time.Duration) time.Duration {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	fmt.Printf("in process: warm query p50 %s, edit -> next p50 %s, %.1f MiB allocated and %.1f collections per edit, heap %d MiB; load average %s\n",
		ms(med(warm)), ms(med(edited)), float64(after.TotalAlloc-before.TotalAlloc)/float64(runs)/(1<<20),
		float64(after.NumGC-before.NumGC)/float64(runs), after.HeapAlloc>>20, loadavg())
	return nil
}

// writeAllocs writes the allocation profile so far to path; two of them,
// before and after the edits, show what the edits allocated
// (go tool pprof -diff_base). The profile is as of the last collection.
func writeAllocs(path string) {
	runtime.GC()
	if f, err := os.Create(path); err == nil {
		pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
}
