package produce_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/internal/testws"
)

var update = flag.Bool("update", false, "rewrite golden files")

const marker = "ZEBRAMARKER"

// fixture builds the fixture workspace in a temp dir.
func fixture(t testing.TB) string {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/fixture.txtar")
	if err != nil {
		t.Fatal(err)
	}
	extra := map[string]string{}
	for _, f := range ar.Files {
		extra[f.Name] = string(f.Data)
	}
	return testws.Thin(t, extra)
}

var bindWS = testws.Bind

// jsonOf is the compact sorted JSON of v, indented for golden files.
func jsonOf(t testing.TB, v any) []byte {
	t.Helper()
	b, err := canon.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	json.Indent(&out, b, "", "  ")
	out.WriteByte('\n')
	return out.Bytes()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		os.WriteFile(p, got, 0o644)
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n%s", name, got)
	}
}

func noLeak(t *testing.T, root string, b []byte) {
	t.Helper()
	if bytes.Contains(b, []byte(marker)) {
		t.Errorf("output holds planted secret content:\n%s", b)
	}
	if bytes.Contains(b, []byte(root)) {
		t.Errorf("output holds the root path")
	}
	for _, name := range []string{".env", "api-token", "plan.md", "receipts.md", "leak.md", "vivary-tmp"} {
		if strings.Contains(string(b), name) {
			t.Errorf("output names %q", name)
		}
	}
}

var bg = context.Background()
