// Command create-vivary scaffolds a thin-v0.3 Vivary workspace, reports its
// health, and makes the one governed write: a capsule-bound, human-approved
// record. It has no MCP dependency.
package main

import (
	"os"

	"github.com/vivary-dev/vivary-go/internal/cli"
)

func main() { os.Exit(cli.Create(os.Args[1:], os.Stdout, os.Stderr)) }
