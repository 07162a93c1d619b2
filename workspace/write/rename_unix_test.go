//go:build unix

package write

// portableRename is the no-replace rename every Unix has.
var portableRename = linkNoReplace
