package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/vivary-dev/vivary-go/capsule"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/workspace"
)

// profileCold runs one producer cold in this fresh process (as `vivary`
// runs it, less the output) on root, under a CPU profile written to out,
// and prints its wall time. A fresh process pays the page faults of a
// growing heap, which a benchmark loop hides.
func profileCold(root, call, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	start := time.Now()
	ws, err := workspace.Bind(root)
	if err != nil {
		return err
	}
	defer ws.Close()
	r := produce.NewReader(ws)
	if call == "served-check" {
		// vivary-mcp's first answer: a serving reader keeps a change feed.
		r = produce.NewServingReader(ws)
	}
	defer r.Close()
	ctx := context.Background()
	switch call {
	case "query":
		_, err = r.Query(ctx, produce.QueryArgs{Text: "quokka privacy", Limit: 10, SnippetChars: 160})
	case "find":
		_, err = r.Find(ctx, produce.FindArgs{Question: "quokka privacy", Limit: 5, Budget: 1200})
	case "capsule":
		_, err = capsule.Compile(ctx, r, capsule.Args{Question: "quokka privacy", MaxClaims: 24})
	default:
		_, err = r.Check(ctx, produce.CheckArgs{})
	}
	d := time.Since(start)
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	fmt.Printf("%s cold in process: %s; load average %s\n", call, ms(d), loadavg())
	return nil
}
