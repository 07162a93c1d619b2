//go:build unix && !linux && !darwin

package write

// renameNoReplace moves from onto to in the folder dfd and fails with
// EEXIST if to exists: a hard link cannot replace a name.
func renameNoReplace(dfd int, from, to string) error { return linkNoReplace(dfd, from, to) }

// exchange is not available here: Replace checks the bytes just before a
// plain rename instead.
func exchange(dfd int, a, b string) error { return errNoExchange }
