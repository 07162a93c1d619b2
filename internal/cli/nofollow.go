package cli

import "syscall"

// noFollow makes an open refuse a link in the last component.
const noFollow = syscall.O_NOFOLLOW
