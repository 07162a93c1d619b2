// Command vivary-mcp is the optional, read-only MCP server over standard
// input and output for Vivary workspaces. See the adapter package.
package main

import (
	"os"
	"runtime/debug"

	"github.com/vivary-dev/vivary-go/mcp/adapter"
)

// softMemoryLimit is the heap the collector works to stay under unless
// GOMEMLIMIT says otherwise. A server keeps its index for hours beside an
// editor, a browser and the agent: by default Go lets the heap grow to
// twice what is live before collecting, which at 50,000 notes is about
// 500 MB for 270 MB of index and snapshot. The limit is soft: a vault that
// needs more still works, at the cost of more collection.
const softMemoryLimit = 384 << 20

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	os.Exit(adapter.Main(os.Args[1:]))
}
