package write

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace moves from onto to in the folder dfd and fails with
// EEXIST if to exists. A filesystem without RENAME_NOREPLACE gets the
// link-and-unlink fallback, which cannot replace a name either.
func renameNoReplace(dfd int, from, to string) error {
	err := unix.Renameat2(dfd, from, dfd, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return linkNoReplace(dfd, from, to)
	}
	return err
}

// exchange swaps the names a and b in the folder dfd atomically, or returns
// errNoExchange where the filesystem cannot.
func exchange(dfd int, a, b string) error {
	err := unix.Renameat2(dfd, a, dfd, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return errNoExchange
	}
	return err
}
