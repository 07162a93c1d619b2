// Command vivary prints bounded, privacy-filtered context from a Vivary
// Markdown workspace: check, query, find and capsule. It never writes.
package main

import (
	"os"
	"runtime/debug"

	"github.com/vivary-dev/vivary-go/internal/cli"
)

// gcPercent is how far the heap grows past what is live before the
// collector runs, unless GOGC says otherwise. A cold call reads every note
// once, holds what it learns until it answers, and exits: at Go's default
// (100) the collector marked the same growing snapshot again and again, a
// sixth of a cold check's CPU at 50,000 notes. At 400 it runs about a
// third as often; a cold check's peak RSS grew about a quarter.
const gcPercent = 400

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(cli.Vivary(os.Args[1:], os.Stdout, os.Stderr))
}
