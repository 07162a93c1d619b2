//go:build unix

package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/vivary-dev/vivary-go/internal/cli"
)

// asNobody runs "vivary ARGS" or "create-vivary ARGS" as a user without
// privileges, so a file or folder with no permissions is unreadable even
// where the tests run as root (which reads anything). Run as root, it opens
// the way to the script's work folder, then drops to nobody.
func asNobody() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: as-nobody vivary|create-vivary ARGS...")
		os.Exit(2)
	}
	if os.Getuid() == 0 {
		// Only the test's own temp folders, never anything above them
		// (testscript points TMPDIR into the work folder; SYSTMP is the
		// test process's own).
		wd, _ := os.Getwd()
		top := os.Getenv("SYSTMP")
		for dir := wd; top != "" && strings.HasPrefix(dir, top+string(filepath.Separator)); dir = filepath.Dir(dir) {
			if st, err := os.Stat(dir); err == nil && st.Mode().Perm()&0o001 == 0 {
				os.Chmod(dir, st.Mode().Perm()|0o011) // search only, for others
			}
		}
		if err := syscall.Setgroups(nil); err != nil {
			panic(err)
		}
		if err := syscall.Setgid(65534); err != nil {
			panic(err)
		}
		if err := syscall.Setuid(65534); err != nil {
			panic(err)
		}
	}
	switch os.Args[1] {
	case "vivary":
		os.Exit(cli.Vivary(os.Args[2:], os.Stdout, os.Stderr))
	case "create-vivary":
		os.Exit(cli.Create(os.Args[2:], os.Stdout, os.Stderr))
	}
	fmt.Fprintln(os.Stderr, "as-nobody: unknown program")
	os.Exit(2)
}
