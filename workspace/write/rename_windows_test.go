package write

// portableRename: Windows has one no-replace rename.
var portableRename = renameNoReplace
