// Command vivary-mcp is the optional, read-only MCP server over standard
// input and output for Vivary workspaces. See the adapter package.
package main

import (
	"os"

	"github.com/vivary-dev/vivary-go/mcp/adapter"
)

func main() { os.Exit(adapter.Main(os.Args[1:])) }
