package write

import "errors"

// The primitives Create and Replace use; tests swap in the portable
// fallbacks to prove them on this system too.
var (
	renameAt   = renameNoReplace
	exchangeAt = exchange
)

// errNoExchange says the system cannot swap two names atomically.
var errNoExchange = errors.New("atomic exchange is not supported here")
