// Command vivary prints bounded, privacy-filtered context from a Vivary
// Markdown workspace: check, query, find and capsule. It never writes.
package main

import (
	"os"

	"github.com/vivary-dev/vivary-go/internal/cli"
)

func main() { os.Exit(cli.Vivary(os.Args[1:], os.Stdout, os.Stderr)) }
