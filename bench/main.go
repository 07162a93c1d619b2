// Command bench measures the read producers on a generated, realistic
// workspace (by default 4,997 typed notes plus the five scaffold files,
// about 25 MiB; -notes N for another size) and prints, for query, find,
// check and capsule: the cold call (a fresh `vivary` process, spawn to
// answer), the warm call in one process on an unchanged tree, the warm call
// over MCP (one vivary-mcp process, spawn to its first answer, then p50 and
// p95 per producer), freshness on an unchanged tree (change feed and stat),
// peak RSS, and the same figures for `rg -l --hidden WORD` over the tree as
// the floor. Figures are only comparable within one run, so every time is
// also given as a multiple of the rg median, and the load average is
// printed with the run: the machine may be busy.
//
//	go run ./bench [-notes N] [-runs N] [-git=false] [-mcp=false]
//	go run ./bench -notes N -gen DIR   (only write the workspace)
//	go run ./bench -mcp-only DIR [-runs N]   (only the warm calls over MCP)
//	go run ./bench -cold-only DIR [-base BINDIR] [-runs N]   (only the cold calls)
//	go run ./bench -first DIR[,DIR...] [-runs N] [-max-calls N] [-trials N]   (a person's first contact)
//
// -vocab zipf makes -gen (and the default run) write notes of a Zipf
// vocabulary over about 200,000 words, like a person's, instead of 80
// words; -load N runs N busy loops while it measures, as a laptop's other
// programs would, and stops them at the end.
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
	"strings"
	"time"

	"github.com/vivary-dev/vivary-go/capsule"
	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/internal/benchgen"
	"github.com/vivary-dev/vivary-go/policy"
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
	cpu  []time.Duration // user and system CPU of each child
	peak int64
	fn   func() error // in this process instead of a child
	// refused is set when a check answered with a work limit (too many
	// findings): it did the work, then refused to list them.
	refused bool
}

// spawnInterleaved runs every command once per round, n rounds, so a drift
// in the machine's state (other load, page cache, frequency) falls on every
// command alike and the ratios stay comparable. A first round is not
// counted: whichever command ran first after the tree was written or
// evicted read it from the disk (rg's CPU in such a round was several times
// its own), and the others found it cached.
func spawnInterleaved(n int, cmds []*cold) error {
	for i := -1; i < n; i++ {
		for _, c := range cmds {
			if c.fn != nil {
				start := time.Now()
				if err := c.fn(); err != nil {
					return err
				}
				if i >= 0 {
					c.ds = append(c.ds, time.Since(start))
				}
				continue
			}
			cmd := exec.Command(c.name, c.args...)
			start := time.Now()
			out, err := cmd.Output()
			d := time.Since(start)
			if err != nil {
				// rg exits 1 when the word is nowhere, and vivary check when
				// it found problems, or 2 when it found too many to list;
				// anything else failed.
				check := len(c.args) > 0 && c.args[0] == "check"
				tooMany := check && strings.Contains(string(out), `"work_limit_exceeded"`)
				ee, ok := err.(*exec.ExitError)
				if !ok || !(filepath.Base(c.name) == "rg" || check) || ee.ExitCode() > 1 && !tooMany {
					return fmt.Errorf("%s: %v\n%s", c.name, err, out)
				}
				c.refused = c.refused || tooMany
			}
			if i < 0 {
				continue
			}
			c.ds = append(c.ds, d)
			c.cpu = append(c.cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
			if rss := maxRSS(cmd.ProcessState); rss > c.peak {
				c.peak = rss
			}
		}
	}
	return nil
}

func main() { os.Exit(bench()) }

// bench runs the measurement the flags ask for and returns the exit code.
func bench() int {
	notes := flag.Int("notes", 4997, "typed notes to generate (the scaffold adds 3 Markdown files)")
	runs := flag.Int("runs", 15, "calls per measurement (cold calls: after one round not counted)")
	withGit := flag.Bool("git", true, "measure the same tree as a Git worktree too")
	withMCP := flag.Bool("mcp", true, "measure warm calls over MCP (a vivary-mcp process per workspace)")
	warmRoot := flag.String("warm", "", "internal: measure the warm calls on this workspace in this process and print them")
	noteBytes := flag.Int("note-bytes", 5000, "body bytes per generated note (the big-vault figures use 7400, like the vaults issue 11 measured)")
	gen := flag.String("gen", "", "only write the generated workspace of -notes notes into this new folder, for measuring by hand")
	mcpOnly := flag.String("mcp-only", "", "only measure warm calls over MCP on this existing workspace (one written by -gen)")
	coldOnly := flag.String("cold-only", "", "only measure cold calls (and vivary-mcp's first answer) on this existing workspace")
	base := flag.String("base", "", "with -cold-only: a folder with another build's vivary and vivary-mcp, measured in the same rounds")
	profile := flag.String("cpuprofile", "", "with -cold-only and -call: run that one call cold in this process and write its CPU profile here")
	call := flag.String("call", "check", "the producer -cpuprofile runs: query, find, capsule, check, served-check (vivary-mcp's first answer, with its change feed), or edit (a serving reader's answers after -runs edits of one note)")
	vocabName := flag.String("vocab", "small", "the words of generated notes: small (80 words) or zipf (Zipf over about 200,000 words, like a person's notes)")
	first := flag.String("first", "", "comma-separated workspaces: measure a person's first contact with each (cold CPU next to rg, vivary-mcp called until it answers, edit -> next answer, peak RSS)")
	maxCalls := flag.Int("max-calls", 10, "with -first: how many times vivary_query is called before giving up")
	trials := flag.Int("trials", 1, "with -first: how many fresh vivary-mcp processes are asked until they answer, one after the other")
	question := flag.String("q", "quokka privacy", "with -first: the question asked")
	load := flag.Int("load", 0, "busy loops to run while measuring")
	spinning := flag.Bool("spin", false, "internal: be one busy loop")
	flag.Parse()
	if *spinning {
		spin()
	}
	vocab := benchgen.Small
	switch *vocabName {
	case "small":
	case "zipf":
		vocab = benchgen.Zipf
	default:
		fmt.Fprintln(os.Stderr, "bench: -vocab is small or zipf")
		return 2
	}
	if *load > 0 {
		stop, err := startLoad(*load)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		defer stop()
		fmt.Printf("%d busy loops running\n", *load)
	}
	if *first != "" {
		if err := runFirst(strings.Split(*first, ","), *runs, *maxCalls, max(1, *trials), *question); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		return 0
	}
	if *coldOnly != "" && *profile != "" && *call == "edit" {
		if err := profileEdits(*coldOnly, *profile, *runs); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		return 0
	}
	if *coldOnly != "" && *profile != "" {
		if err := profileCold(*coldOnly, *call, *profile); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		return 0
	}
	if *coldOnly != "" {
		if err := runColdOnly(*coldOnly, *base, *runs); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		return 0
	}
	if *mcpOnly != "" {
		if err := runMCPOnly(*mcpOnly, *runs); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		return 0
	}
	if *gen != "" {
		if err := benchgen.WriteVocab(*gen, *notes, *noteBytes, vocab); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		return 0
	}
	if *warmRoot != "" {
		if err := measureWarm(*warmRoot, *runs); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		return 0
	}
	if err := run(*notes, *noteBytes, vocab, *runs, *withGit, *withMCP); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	return 0
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

func ratio(d, floor time.Duration) string { return fmt.Sprintf("%.2fx", float64(d)/float64(floor)) }

func run(notes, noteBytes int, vocab benchgen.Vocab, runs int, withGit, withMCP bool) error {
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
	// The same tree twice: outside Git (the exact ignore block decides) and
	// as a Git worktree (git check-ignore decides), the usual home of notes.
	thin, inGit := filepath.Join(tmp, "ws"), filepath.Join(tmp, "git")
	roots := []string{thin}
	if withGit {
		roots = append(roots, inGit)
	}
	for _, root := range roots {
		if err := benchgen.WriteVocab(root, notes, noteBytes, vocab); err != nil {
			return err
		}
	}
	if withGit {
		if out, err := exec.Command("git", "-C", inGit, "init", "-q").CombinedOutput(); err != nil {
			return fmt.Errorf("git init: %v\n%s", err, out)
		}
	}
	var size int64
	filepath.Walk(thin, func(_ string, info os.FileInfo, _ error) error {
		if info != nil && info.Mode().IsRegular() {
			size += info.Size()
		}
		return nil
	})
	time.Sleep(100 * time.Millisecond) // past the racy window of the snapshot
	fmt.Printf("workspace: %d Markdown files, %.1f MiB; %d calls each; load average %s\n\n", notes+3, float64(size)/(1<<20), runs, loadavg())

	// --hidden: the notes live under .vivary/, which rg skips by default; the
	// floor must read the same files the producers read.
	floorCmd := &cold{name: rg, args: []string{"-l", "--hidden", "quokka", thin}}
	cmds := []*cold{floorCmd}
	var names []string
	for _, root := range roots {
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
	// The credential and name screens run in this process between the cold
	// calls, so the same drift falls on them.
	docScreen, nameScreen, err := screens(thin)
	if err != nil {
		return err
	}
	if err := spawnInterleaved(runs, append(cmds, docScreen, nameScreen)); err != nil {
		return err
	}
	// Warm calls run in one child process per workspace, as one vivary-mcp
	// serves one workspace, so its peak RSS is that of one snapshot.
	var warm []stats
	var reps []warmReport
	self, err := os.Executable()
	if err != nil {
		return err
	}
	for _, root := range roots {
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
		reps = append(reps, rep)
	}
	var mcps []*mcpReport
	if withMCP {
		for _, root := range roots {
			rep, err := measureMCP(mcpBin, root, runs)
			if err != nil {
				return fmt.Errorf("vivary-mcp: %v", err)
			}
			mcps = append(mcps, rep)
		}
	}
	floor := summarize(floorCmd.ds, floorCmd.peak)
	fmt.Printf("rg -l --hidden: median %s, p95 %s, peak RSS %d MiB (the 1.00x below)\n\n", ms(floor.median), ms(floor.p95), floor.rssKiB/1024)
	fmt.Printf("%-16s %22s %22s %9s %22s %22s\n", "call", "cold median (x rg)", "cold p95 (x rg)", "cold RSS", "warm p50 (x rg)", "warm p95 (x rg)")
	for i, name := range names {
		cold := summarize(cmds[i+1].ds, cmds[i+1].peak)
		fmt.Printf("%-16s %12s %9s %12s %9s %7dMi %12s %9s %12s %9s\n", name,
			ms(cold.median), ratio(cold.median, floor.median), ms(cold.p95), ratio(cold.p95, floor.median), cold.rssKiB/1024,
			ms(warm[i].median), ratio(warm[i].median, floor.median), ms(warm[i].p95), ratio(warm[i].p95, floor.median))
	}
	fmt.Println()
	for i, root := range roots {
		where := "outside Git"
		if root == inGit {
			where = "in Git"
		}
		f, fs := summarize(reps[i].Fresh, 0), summarize(reps[i].FreshStat, 0)
		fmt.Printf("%s: freshness on an unchanged tree: change feed p50 %s p95 %s; stat of every input p50 %s p95 %s (%s)\n",
			where, fmtDur(f.median), fmtDur(f.p95), ms(fs.median), ms(fs.p95), ratio(fs.median, floor.median))
		fmt.Printf("%s: warm process peak RSS %d MiB = %.2fx the corpus (%.1f MiB)\n", where, reps[i].PeakKiB/1024, float64(reps[i].PeakKiB*1024)/float64(size), float64(size)/(1<<20))
		if withMCP {
			m := mcps[i]
			fmt.Printf("%s: vivary-mcp spawn -> first answer (check) %s (%s); peak RSS %d MiB\n", where, ms(m.first), ratio(m.first, floor.median), m.peak/1024)
			for j, name := range callNames {
				st := summarize(m.calls[j], 0)
				fmt.Printf("    warm over MCP %-8s p50 %s (%s)  p95 %s (%s)\n", name, ms(st.median), ratio(st.median, floor.median), ms(st.p95), ratio(st.p95, floor.median))
			}
		}
	}
	check, query := summarize(cmds[3].ds, 0).median, summarize(cmds[1].ds, 0).median
	sc, nc := summarize(docScreen.ds, 0).median, summarize(nameScreen.ds, 0).median
	fmt.Printf("\ndocument screen (credentials, root), in process: p50 %s = %.1f%% of a cold check, %.1f%% of a cold query\n",
		ms(sc), 100*float64(sc)/float64(check), 100*float64(sc)/float64(query))
	fmt.Printf("name screen (every component of every path), in process: p50 %s = %.1f%% of a cold check\n",
		ms(nc), 100*float64(nc)/float64(check))
	fmt.Printf("\nload average at the end: %s\n", loadavg())
	return nil
}

func fmtDur(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.0f µs", float64(d)/1e3)
	}
	return ms(d)
}

// screens are the document screen over every Markdown text of root and
// the name screen over every path, as a cold call runs them, to be timed
// in this process.
func screens(root string) (docs, names *cold, err error) {
	var texts, paths []string
	err = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		paths = append(paths, filepath.ToSlash(rel))
		if info.Mode().IsRegular() && strings.HasSuffix(p, ".md") {
			b, err := os.ReadFile(p)
			texts = append(texts, string(b))
			return err
		}
		return nil
	})
	docs = &cold{name: "screen", fn: func() error {
		for _, t := range texts {
			if guard.Credential(t) || guard.ContainsRoot(t, root) {
				return fmt.Errorf("a generated note was screened out")
			}
		}
		return nil
	}}
	names = &cold{name: "names", fn: func() error {
		for _, p := range paths {
			if policy.Sensitive(p) {
				return fmt.Errorf("a generated path was called sensitive")
			}
		}
		return nil
	}}
	return docs, names, err
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
	Calls     [][]time.Duration
	Fresh     []time.Duration // a snapshot proved fresh by the change feed
	FreshStat []time.Duration // the same by a stat of every input
	PeakKiB   int64
}

var questions = []string{"quokka privacy", "snapshot cache budget", "wombat gate verification", "dingo frame timeout", "how does the policy admit paths"}

// measureWarm loads one snapshot, then times runs calls of each producer on
// the unchanged tree, rotating five questions, and prints a warmReport.
func measureWarm(root string, runs int) error {
	ws, err := workspace.Bind(root)
	if err != nil {
		return err
	}
	defer ws.Close()
	r := produce.NewServingReader(ws)
	defer r.Close()
	ctx := context.Background()
	queries := questions
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
			_, err := capsule.Compile(ctx, r, capsule.Args{Question: queries[i%len(queries)], MaxClaims: 24})
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
	// The peak before a second snapshot (the stat reader's) is loaded: one
	// process serves one snapshot.
	rep.PeakKiB = selfRSS()
	for _, rd := range []*produce.Reader{r, produce.NewReader(ws)} {
		if _, err := rd.Snapshot(ctx); err != nil {
			return err
		}
		var ds []time.Duration
		for i := 0; i < runs; i++ {
			start := time.Now()
			if _, err := rd.Snapshot(ctx); err != nil {
				return err
			}
			ds = append(ds, time.Since(start))
		}
		if rd == r {
			rep.Fresh = ds
		} else {
			rep.FreshStat = ds
		}
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}
