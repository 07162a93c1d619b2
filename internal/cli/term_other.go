//go:build !unix && !windows

package cli

import "os"

// isTerminal: no terminal is known here, so no progress line is drawn.
func isTerminal(*os.File) bool { return false }
