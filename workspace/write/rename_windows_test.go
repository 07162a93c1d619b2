package write

// portableRename: Windows has one no-replace rename.
var portableRename = renameNoReplace

// keepsPermissions: Windows has no permission bits for Replace to keep.
const keepsPermissions = false

// swapsOldOut: Windows cannot exchange two names.
const swapsOldOut = false
