package cli_test

import (
	"fmt"
	"os"
)

// asNobody is refused: Windows has no nobody to drop to.
func asNobody() {
	fmt.Fprintln(os.Stderr, "as-nobody: not on Windows")
	os.Exit(2)
}
