package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runFirst measures a person's first contact with each workspace of roots
// (written by -gen, or any folder of notes such as the tldr pages), under
// whatever load -load set: the CPU seconds of each cold call as a fresh
// `vivary` process, next to `rg -l --hidden` in the same rounds; then, in
// each of trials fresh vivary-mcp processes, vivary_query asked again
// after each refusal until it answers (each call's reason, wall time and
// progress; how many calls, how long, the server's CPU), and a second
// question likewise; in the last, the warm answer and the next answer
// after one note is edited; and each server's peak RSS.
func runFirst(roots []string, runs, maxCalls, trials int, question string) error {
	rg, err := findRipgrep()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "vivary-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, mcpBin, err := buildBinaries(tmp)
	if err != nil {
		return err
	}
	word := strings.Fields(question)[0]
	for _, root := range roots {
		files, size, edit := markdown(root)
		fmt.Printf("\n%s: %d Markdown files, %.1f MiB; %d rounds; load average %s\n", root, files, float64(size)/(1<<20), runs, loadavg())
		floor := &cold{name: rg, args: []string{"-l", "--hidden", word, root}}
		cmds := []*cold{floor}
		for _, c := range []string{"query", "find", "check"} {
			args := []string{c, "--workspace", root, "--json"}
			if c != "check" {
				args = append(args, strings.Fields(question)...)
			}
			cmds = append(cmds, &cold{name: bin, args: args})
		}
		if err := spawnInterleaved(runs, cmds); err != nil {
			return err
		}
		fl := summarize(floor.cpu, floor.peak)
		fmt.Printf("%-26s %11s %11s %8s %9s\n", "cold call", "wall p50", "CPU p50", "x rg CPU", "peak RSS")
		for i, name := range []string{"rg -l --hidden", "vivary query", "vivary find", "vivary check"} {
			c := cmds[i]
			w, cpu := summarize(c.ds, c.peak), summarize(c.cpu, 0)
			note := ""
			if c.refused {
				note = " (answered: more than 200 findings)"
			}
			fmt.Printf("%-26s %11s %11s %8s %7dMi%s\n", name, secs(w.median), secs(cpu.median), ratio(cpu.median, fl.median), w.rssKiB/1024, note)
		}
		if err := firstContact(mcpBin, root, edit, runs, maxCalls, trials, question, fl.median); err != nil {
			return err
		}
		fmt.Printf("load average at the end: %s\n", loadavg())
	}
	return nil
}

// firstContact is trials fresh vivary-mcp processes over root, one after
// the other: in each, vivary_query until it answers, then a second
// question its index does not cover until it answers; in the last, warm answers,
// then the answer after each of runs edits of the note edit (restored at
// the end).
func firstContact(bin, root, edit string, runs, maxCalls, trials int, question string, rgCPU time.Duration) error {
	var ts []trial
	for i := 1; i <= trials; i++ {
		if trials > 1 {
			fmt.Printf("trial %d of %d (load average %s)\n", i, trials, loadavg())
		}
		t, s, err := oneTrial(bin, root, maxCalls, question, rgCPU)
		if err != nil {
			return err
		}
		if i == trials && t.first.answered && t.second.answered {
			if err := warmAndEdit(s, edit, runs, maxCalls, question); err != nil {
				s.close()
				return err
			}
		}
		t.peakMiB = s.close() / 1024
		fmt.Printf("vivary-mcp peak RSS %d MiB\n", t.peakMiB)
		if trials > 1 {
			fmt.Printf("trial %d: first question %s; second question %s; peak RSS %d MiB\n", i, t.first, t.second, t.peakMiB)
		}
		ts = append(ts, t)
	}
	summarizeTrials(ts, rgCPU)
	return nil
}

// oneTrial starts a fresh vivary-mcp over root and asks the first
// question, then the second, each again after each refusal; it returns
// the session still open.
func oneTrial(bin, root string, maxCalls int, question string, rgCPU time.Duration) (trial, *mcpSession, error) {
	var t trial
	start := time.Now()
	s, err := startMCP(bin, root)
	if err != nil {
		return t, nil, err
	}
	if t.first, err = askUntilAnswered(s, question, maxCalls, start, 0); err != nil {
		s.close()
		return t, nil, err
	}
	if !t.first.answered {
		fmt.Printf("vivary-mcp first contact: %s (%s rg)\n", t.first, ratio(t.first.cpu, rgCPU))
		return t, s, nil
	}
	fmt.Printf("vivary-mcp first contact: vivary_query %s (%s rg)", t.first, ratio(t.first.cpu, rgCPU))
	if len(t.first.refusals) > 0 {
		fmt.Printf("; refused: %s", strings.Join(t.first.refusals, ", "))
	}
	fmt.Println()
	// A second question: the server's first answer came from an index of
	// the first question's terms, which does not cover this one.
	if t.second, err = askUntilAnswered(s, "snapshot cache budget", maxCalls, time.Now(), procCPU(s.cmd.Process.Pid)); err != nil {
		s.close()
		return t, nil, err
	}
	fmt.Printf("a second question: %s\n", t.second)
	return t, s, nil
}

// warmAndEdit times runs warm answers, then the answer after each of runs
// edits of the note edit (restored at the end). The questions it rotates
// are first each asked until answered, untimed: a third distinct question
// builds the full index in its call, and warm means after that.
func warmAndEdit(s *mcpSession, edit string, runs, maxCalls int, question string) error {
	for _, q := range questions[:min(runs, len(questions))] {
		a, err := askUntilAnswered(s, q, maxCalls, time.Now(), procCPU(s.cmd.Process.Pid))
		if err != nil {
			return err
		}
		if !a.answered {
			return fmt.Errorf("before the warm calls, %q: %s", q, a)
		}
		fmt.Printf("before the warm calls, %q: %s\n", q, a)
	}
	var warm, edited []time.Duration
	for i := 0; i < runs; i++ {
		_, a := mcpArgs("query", questions[i%len(questions)])
		t0 := time.Now()
		if err := s.call("vivary_query", a); err != nil {
			return err
		}
		warm = append(warm, time.Since(t0))
	}
	if edit != "" && runs > 0 {
		orig, err := os.ReadFile(edit)
		if err != nil {
			return err
		}
		defer os.WriteFile(edit, orig, 0o644)
		for i := 0; i < runs; i++ {
			// A new word and a changed length: postings, lengths and
			// statistics all move.
			text := fmt.Sprintf("%s\nedited %d: %s %s\n", orig, i, question, strings.Repeat("bench ", i+1))
			if err := os.WriteFile(edit, []byte(text), 0o644); err != nil {
				return err
			}
			_, a := mcpArgs("query", questions[i%len(questions)])
			t0 := time.Now()
			if err := s.call("vivary_query", a); err != nil {
				return err
			}
			edited = append(edited, time.Since(t0))
		}
	}
	w := summarize(warm, 0)
	fmt.Printf("warm vivary_query p50 %s p95 %s", ms(w.median), ms(w.p95))
	if len(edited) > 0 {
		e := summarize(edited, 0)
		fmt.Printf("; edit one note -> next answer p50 %s p95 %s (%s warm)", ms(e.median), ms(e.p95), ratio(e.median, w.median))
	}
	fmt.Println()
	return nil
}

// markdown counts the Markdown files under root and their bytes, and picks
// the one an edit changes: the middle one in path order.
func markdown(root string) (files int, size int64, edit string) {
	var paths []string
	filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() && strings.HasSuffix(p, ".md") {
			if info, err := e.Info(); err == nil {
				size += info.Size()
			}
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	if len(paths) > 0 {
		edit = paths[len(paths)/2]
	}
	return len(paths), size, edit
}

// procCPU is the user and system CPU time a running process has spent.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	// utime and stime, fields 14 and 15, in clock ticks (100 a second on
	// Linux).
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// startLoad starts n busy loops, each a child process of this binary, so
// they load every core like other programs would; stop ends them. A loop
// also ends when this process dies: it exits when its stdin closes.
func startLoad(n int) (stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var procs []*exec.Cmd
	stop = func() {
		for _, p := range procs {
			p.Process.Signal(syscall.SIGTERM)
			p.Wait()
		}
	}
	for i := 0; i < n; i++ {
		cmd := exec.Command(self, "-spin")
		if _, err := cmd.StdinPipe(); err != nil {
			stop()
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			stop()
			return nil, err
		}
		procs = append(procs, cmd)
	}
	return stop, nil
}

// spin is one busy loop: it computes until its stdin closes.
func spin() {
	go func() {
		var b [1]byte
		for {
			if _, err := os.Stdin.Read(b[:]); err != nil {
				os.Exit(0)
			}
		}
	}()
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			fmt.Print("")
		}
	}
}
