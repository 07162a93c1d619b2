package testws

import (
	"os"
	"strconv"
	"strings"
)

// ProcsIn lists the live processes whose working folder is root or below
// it, from /proc (none where there is no /proc): git runs with -C root and
// nothing else a test starts does, so this is "the gits still running for
// this workspace".
func ProcsIn(root string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err == nil && (cwd == root || strings.HasPrefix(cwd, root+"/")) {
			pids = append(pids, pid)
		}
	}
	return pids
}
