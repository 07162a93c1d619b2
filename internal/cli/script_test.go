package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vivary-dev/vivary-go/internal/cli"
	"github.com/vivary-dev/vivary-go/scaffold"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"vivary": func() { os.Exit(cli.Vivary(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
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
