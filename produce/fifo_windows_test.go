package produce_test

import "testing"

// mkfifo skips: Windows has no FIFO in a folder.
func mkfifo(t *testing.T, _ string) { t.Skip("Windows has no FIFOs") }
