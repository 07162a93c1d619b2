package adapter

import "syscall"

// dupTo makes fd newfd a copy of oldfd (Dup3: linux/arm64 has no Dup2).
func dupTo(oldfd, newfd int) error { return syscall.Dup3(oldfd, newfd, 0) }
