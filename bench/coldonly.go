package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// runColdOnly measures cold calls on an existing workspace (one written by
// -gen): each producer as a fresh `vivary` process and vivary-mcp's spawn
// to first answer, interleaved with `rg -l --hidden` over the same tree.
// With base (a folder holding another build's vivary and vivary-mcp, say
// main's), the same calls of that build run in the same rounds, so a
// before/after comparison shares the machine's drift.
func runColdOnly(root, base string, runs int) error {
	rg, err := findRipgrep()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "vivary-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, b := range [][2]string{{"vivary", "./cmd/vivary"}, {"vivary-mcp", "./mcp/cmd/vivary-mcp"}} {
		build := exec.Command("go", "build", "-o", filepath.Join(tmp, b[0]), b[1])
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return err
		}
	}
	builds := []string{tmp}
	labels := []string{"this"}
	if base != "" {
		builds, labels = append(builds, base), append(labels, "base")
	}
	floor := &cold{name: rg, args: []string{"-l", "--hidden", "quokka", root}}
	cmds := []*cold{floor}
	var names []string
	for b, dir := range builds {
		for _, c := range callNames {
			args := []string{c, "--workspace", root, "--json"}
			if c != "check" {
				args = append(args, "quokka", "privacy")
			}
			cmds = append(cmds, &cold{name: filepath.Join(dir, "vivary"), args: args})
			names = append(names, labels[b]+" "+c)
		}
		bin := filepath.Join(dir, "vivary-mcp")
		cmds = append(cmds, &cold{name: "mcp", fn: func() error {
			s, err := startMCP(bin, root)
			if err != nil {
				return err
			}
			tool, args := mcpArgs("check", "")
			err = s.call(tool, args)
			s.close()
			return err
		}})
		names = append(names, labels[b]+" vivary-mcp first answer")
	}
	fmt.Printf("workspace %s; %d rounds; load average %s\n", root, runs, loadavg())
	start := time.Now()
	if err := spawnInterleaved(runs, cmds); err != nil {
		return err
	}
	fl := summarize(floor.ds, floor.peak)
	flCPU := summarize(floor.cpu, 0)
	fmt.Printf("%-32s %10s %8s %10s %8s %10s %8s %9s\n", "call", "median", "x rg", "p95", "x rg", "CPU p50", "x rg", "peak RSS")
	fmt.Printf("%-32s %10s %8s %10s %8s %10s %8s %7dMi\n", "rg -l --hidden", ms(fl.median), "1.00x", ms(fl.p95), ratio(fl.p95, fl.median), ms(flCPU.median), "1.00x", fl.rssKiB/1024)
	cpus := map[string]time.Duration{}
	for i, name := range names {
		st := summarize(cmds[i+1].ds, cmds[i+1].peak)
		rss := fmt.Sprintf("%7dMi", st.rssKiB/1024)
		// The first answer runs in this process's child session: its CPU
		// and RSS are not the spawned process's and are not shown.
		cpu, cpuRatio := "", ""
		if strings.HasSuffix(name, "first answer") {
			rss = ""
		} else {
			c := summarize(cmds[i+1].cpu, 0).median
			cpus[name] = c
			cpu, cpuRatio = ms(c), ratio(c, flCPU.median)
		}
		fmt.Printf("%-32s %10s %8s %10s %8s %10s %8s %9s\n", name, ms(st.median), ratio(st.median, fl.median), ms(st.p95), ratio(st.p95, fl.median), cpu, cpuRatio, rss)
	}
	if base != "" {
		for _, c := range callNames {
			fmt.Printf("this/base CPU p50 %-14s %8s\n", c, ratio(cpus["this "+c], cpus["base "+c]))
		}
	}
	fmt.Printf("took %s; load average at the end %s\n", time.Since(start).Round(time.Second), loadavg())
	return nil
}
