package write

import (
	"errors"

	"golang.org/x/sys/unix"
)

// The primitives Create and Replace use; tests swap in the portable
// fallbacks to prove them on this system too.
var (
	renameAt   = renameNoReplace
	exchangeAt = exchange
)

// errNoExchange says the system cannot swap two names atomically.
var errNoExchange = errors.New("atomic exchange is not supported here")

// linkNoReplace is the portable no-replace rename: a new hard link fails
// with EEXIST if to exists, then the temp name is removed.
func linkNoReplace(dfd int, from, to string) error {
	if err := unix.Linkat(dfd, from, dfd, to, 0); err != nil {
		return err
	}
	return unix.Unlinkat(dfd, from, 0)
}
