package write

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace moves from onto to in the folder dfd and fails with
// EEXIST if to exists (renameatx_np with RENAME_EXCL). A filesystem without
// it gets the link-and-unlink fallback, which cannot replace a name either.
func renameNoReplace(dfd int, from, to string) error {
	err := unix.RenameatxNp(dfd, from, dfd, to, unix.RENAME_EXCL)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return linkNoReplace(dfd, from, to)
	}
	return err
}

// exchange swaps the names a and b in the folder dfd atomically
// (RENAME_SWAP), or returns errNoExchange where the filesystem cannot.
func exchange(dfd int, a, b string) error {
	err := unix.RenameatxNp(dfd, a, dfd, b, unix.RENAME_SWAP)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return errNoExchange
	}
	return err
}
