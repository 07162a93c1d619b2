//go:build unix

package write

import "runtime"

// portableRename is the no-replace rename every Unix has.
var portableRename = linkNoReplace

// keepsPermissions: a Unix file has permission bits for Replace to keep.
const keepsPermissions = true

// swapsOldOut says whether Replace exchanges the names and then unlinks the
// file swapped out (else it checks the bytes and renames over them).
const swapsOldOut = runtime.GOOS == "linux" || runtime.GOOS == "darwin"
