package workspace

import "testing"

// HoldAtMost lowers the bound on a Reader's held folder handles for one test.
func HoldAtMost(t testing.TB, n int) {
	old := maxHeldDirs
	maxHeldDirs = n
	t.Cleanup(func() { maxHeldDirs = old })
}
