// Command bench measures the read producers on a generated, realistic
// workspace (by default 4,997 typed notes plus the five scaffold files,
// about 25 MiB) and prints, for query, find, check and capsule: the cold call
// (a fresh `vivary` process) and the warm call (one process, unchanged tree)
// median and p95, peak RSS, and the same figures for `rg --hidden -c WORD`
// over the tree as the physical floor. Figures are only comparable within one run, so
// it also prints each cold median as a multiple of the rg floor.
//
//	go run ./bench [-notes N] [-runs N]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/vivary-dev/vivary-go/internal/benchgen"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/workspace"
)

type stats struct {
	median, p95 time.Duration
	rssKiB      int64
}

func summarize(ds []time.Duration, rss int64) stats {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return stats{median: ds[len(ds)/2], p95: ds[(len(ds)*95+99)/100-1], rssKiB: rss}
}

// cold holds the wall times and the peak RSS of one command's fresh processes.
type cold struct {
	name string
	args []string
	ds   []time.Duration
	peak int64
}

// spawnInterleaved runs every command once per round, n rounds, so a drift
// in the machine's state (other load, page cache, frequency) falls on every
// command alike and the ratios stay comparable.
func spawnInterleaved(n int, cmds []*cold) error {
	for i := 0; i < n; i++ {
		for _, c := range cmds {
			cmd := exec.Command(c.name, c.args...)
			start := time.Now()
			out, err := cmd.Output()
			d := time.Since(start)
			if err != nil {
				// rg exits 1 when the word is nowhere; anything else failed.
				if ee, ok := err.(*exec.ExitError); !ok || filepath.Base(c.name) != "rg" || ee.ExitCode() > 1 {
					return fmt.Errorf("%s: %v\n%s", c.name, err, out)
				}
			}
			c.ds = append(c.ds, d)
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > c.peak {
				c.peak = ru.Maxrss
			}
		}
	}
	return nil
}

func selfRSS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss
}

func main() {
	notes := flag.Int("notes", 4997, "typed notes to generate (the scaffold adds 3 Markdown files; 5,000 is the limit)")
	runs := flag.Int("runs", 15, "calls per measurement")
	warmRoot := flag.String("warm", "", "internal: measure the warm calls on this workspace in this process and print them")
	flag.Parse()
	if *warmRoot != "" {
		if err := measureWarm(*warmRoot, *runs); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*notes, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(notes, runs int) error {
	rg, err := findRipgrep()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "vivary-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "vivary")
	build := exec.Command("go", "build", "-o", bin, "./cmd/vivary")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return err
	}
	// The same tree twice: outside Git (the exact ignore block decides) and
	// as a Git worktree (git check-ignore decides), the usual home of notes.
	thin, inGit := filepath.Join(tmp, "ws"), filepath.Join(tmp, "git")
	for _, root := range []string{thin, inGit} {
		if err := benchgen.Write(root, notes, 5000); err != nil {
			return err
		}
	}
	if out, err := exec.Command("git", "-C", inGit, "init", "-q").CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v\n%s", err, out)
	}
	var size int64
	filepath.Walk(thin, func(_ string, info os.FileInfo, _ error) error {
		if info != nil && info.Mode().IsRegular() {
			size += info.Size()
		}
		return nil
	})
	time.Sleep(100 * time.Millisecond) // past the racy window of the snapshot
	fmt.Printf("workspace: %d Markdown files, %.1f MiB; %d calls each\n\n", notes+3, float64(size)/(1<<20), runs)

	// --hidden: the notes live under .vivary/, which rg skips by default; the
	// floor must read the same files the producers read.
	floorCmd := &cold{name: rg, args: []string{"--hidden", "-c", "quokka", thin}}
	cmds := []*cold{floorCmd}
	var names []string
	for _, root := range []string{thin, inGit} {
		suffix := ""
		if root == inGit {
			suffix = " (git)"
		}
		for _, c := range callNames {
			names = append(names, c+suffix)
			args := []string{c, "--workspace", root, "--json"}
			if c != "check" {
				args = append(args, "quokka", "privacy")
			}
			cmds = append(cmds, &cold{name: bin, args: args})
		}
	}
	if err := spawnInterleaved(runs, cmds); err != nil {
		return err
	}
	// Warm calls run in one child process per workspace, as one vivary-mcp
	// serves one workspace, so its peak RSS is that of one snapshot.
	var warm []stats
	var warmRSS []int64
	self, err := os.Executable()
	if err != nil {
		return err
	}
	for _, root := range []string{thin, inGit} {
		out, err := exec.Command(self, "-warm", root, "-runs", fmt.Sprint(runs)).Output()
		if err != nil {
			return fmt.Errorf("warm calls: %v", err)
		}
		var rep warmReport
		if err := json.Unmarshal(out, &rep); err != nil {
			return fmt.Errorf("warm calls: %v", err)
		}
		for _, ds := range rep.Calls {
			warm = append(warm, summarize(ds, rep.PeakKiB))
		}
		warmRSS = append(warmRSS, rep.PeakKiB)
	}
	floor := summarize(floorCmd.ds, floorCmd.peak)
	const row = "%-14s %12v %12v %8dMi %12v %12v %8.1fx\n"
	fmt.Printf("%-14s %12s %12s %10s %12s %12s %9s\n", "call", "cold median", "cold p95", "cold RSS", "warm median", "warm p95", "cold/rg")
	fmt.Printf("%-14s %12v %12v %8dMi %12s %12s %9s\n", "rg", floor.median.Round(time.Microsecond), floor.p95.Round(time.Microsecond), floor.rssKiB/1024, "-", "-", "1.0x")
	for i, name := range names {
		cold := summarize(cmds[i+1].ds, cmds[i+1].peak)
		fmt.Printf(row, name, cold.median.Round(time.Microsecond), cold.p95.Round(time.Microsecond),
			cold.rssKiB/1024, warm[i].median.Round(time.Microsecond), warm[i].p95.Round(time.Microsecond), float64(cold.median)/float64(floor.median))
	}
	fmt.Printf("\nwarm process peak RSS: %d MiB outside Git, %d MiB in Git\n", warmRSS[0]/1024, warmRSS[1]/1024)
	return nil
}

// findRipgrep finds rg, installing Debian's ripgrep package when it is
// missing and apt-get can (as root).
func findRipgrep() (string, error) {
	if rg, err := exec.LookPath("rg"); err == nil {
		return rg, nil
	}
	if _, err := exec.LookPath("apt-get"); err != nil || os.Geteuid() != 0 {
		return "", fmt.Errorf("ripgrep is needed for the floor; install it (Debian: apt-get install -y ripgrep)")
	}
	fmt.Fprintln(os.Stderr, "bench: installing ripgrep from Debian for the floor")
	for _, args := range [][]string{{"update", "-qq"}, {"install", "-y", "-qq", "ripgrep"}} {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("apt-get %s failed: %v\n%s", args[0], err, out)
		}
	}
	return exec.LookPath("rg")
}

var callNames = []string{"query", "find", "check", "capsule"}

type warmReport struct {
	Calls   [][]time.Duration
	PeakKiB int64
}

// measureWarm loads one snapshot, then times runs calls of each producer on
// the unchanged tree, rotating five questions, and prints a warmReport.
func measureWarm(root string, runs int) error {
	ws, err := workspace.Bind(root)
	if err != nil {
		return err
	}
	defer ws.Close()
	r := produce.NewReader(ws)
	ctx := context.Background()
	queries := []string{"quokka privacy", "snapshot cache budget", "wombat gate verification", "dingo frame timeout", "how does the policy admit paths"}
	calls := map[string]func(i int) error{
		"query": func(i int) error {
			_, err := r.Query(ctx, produce.QueryArgs{Text: queries[i%len(queries)], Limit: 10, SnippetChars: 160})
			return err
		},
		"find": func(i int) error {
			_, err := r.Find(ctx, produce.FindArgs{Question: queries[i%len(queries)], Limit: 5, Budget: 1200})
			return err
		},
		"check": func(int) error {
			_, err := r.Check(ctx, produce.CheckArgs{})
			return err
		},
		"capsule": func(i int) error {
			_, err := r.Capsule(ctx, produce.CapsuleArgs{Question: queries[i%len(queries)], MaxClaims: 24})
			return err
		},
	}
	var rep warmReport
	for _, name := range callNames {
		call := calls[name]
		if err := call(0); err != nil { // load the snapshot once
			return err
		}
		var ds []time.Duration
		for i := 0; i < runs; i++ {
			start := time.Now()
			if err := call(i); err != nil {
				return err
			}
			ds = append(ds, time.Since(start))
		}
		rep.Calls = append(rep.Calls, ds)
	}
	rep.PeakKiB = selfRSS()
	return json.NewEncoder(os.Stdout).Encode(rep)
}
