//go:build !linux

package record

import "os"

// renameNoReplace moves from onto to, failing if to exists: a hard link
// cannot replace a name, and the temp name is removed after it.
func renameNoReplace(from, to string) error {
	if err := os.Link(from, to); err != nil {
		return err
	}
	return os.Remove(from)
}
