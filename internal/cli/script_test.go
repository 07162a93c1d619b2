package cli_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vivary-dev/vivary-go/internal/cli"
	"github.com/vivary-dev/vivary-go/internal/faults"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/record"
	"github.com/vivary-dev/vivary-go/scaffold"
)

func TestMain(m *testing.M) {
	// The post-write verification hook exists only in this test binary.
	record.AfterWrite = func() error {
		if os.Getenv("VIVARY_TEST_FAIL_DOCTOR") != "" {
			return errors.New("injected verification failure")
		}
		return nil
	}
	// VIVARY_FAULT_EXIT stops a story's create-vivary dead at a write step.
	faults.Install()
	testscript.Main(building{m}, map[string]func(){
		"vivary":        func() { os.Exit(cli.Vivary(os.Args[1:], os.Stdout, os.Stderr)) },
		"create-vivary": func() { os.Exit(cli.Create(os.Args[1:], os.Stdout, os.Stderr)) },
		"as-nobody":     asNobody,
	})
}

func TestScripts(t *testing.T) {
	current, old := mcpBinaries(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("MCPBIN", filepath.Dir(current))
			env.Setenv("SYSTMP", os.TempDir())
			env.Setenv("OLDMCPBIN", filepath.Dir(old))
			env.Setenv("GOPATH", filepath.Join(env.WorkDir, ".gopath"))
			env.Setenv("GOBIN", "")
			// BASEPATH is PATH without any directory that holds a vivary-mcp,
			// so the probe finds only the adapters a script puts first.
			var keep []string
			for _, d := range filepath.SplitList(env.Getenv("PATH")) {
				if _, err := os.Stat(filepath.Join(d, "vivary-mcp")); err != nil {
					keep = append(keep, d)
				}
			}
			env.Setenv("BASEPATH", strings.Join(keep, string(os.PathListSeparator)))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// treehash DIR FILE writes a digest of every name and byte under DIR.
			"treehash": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: treehash DIR FILE")
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(testws.Hash(t, ts.MkAbs(args[0]))+"\n"), 0o644))
			},
			// pad FILE N appends a comment line that makes FILE exactly N bytes.
			"pad": func(ts *testscript.TestScript, neg bool, args []string) {
				n, err := strconv.Atoi(args[len(args)-1])
				if len(args) != 2 || err != nil {
					ts.Fatalf("usage: pad FILE BYTES")
				}
				p := ts.MkAbs(args[0])
				b, err := os.ReadFile(p)
				ts.Check(err)
				if len(b)+2 > n {
					ts.Fatalf("pad: %s is already %d bytes", args[0], len(b))
				}
				b = append(b, '#')
				b = append(b, bytes.Repeat([]byte{'x'}, n-len(b)-1)...)
				ts.Check(os.WriteFile(p, append(b, '\n'), 0o644))
			},
			// scaffold DIR writes the five greenfield files into DIR.
			"scaffold": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: scaffold DIR")
				}
				root := ts.MkAbs(args[0])
				for _, f := range scaffold.Files(filepath.Base(root), scaffold.DefaultPreset) {
					p := filepath.Join(root, f.Path)
					ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
					ts.Check(os.WriteFile(p, []byte(f.Content), 0o644))
				}
			},
		},
	})
}
