package testws

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/vivary-dev/vivary-go/canon"
)

//go:embed fixture.txtar
var fixture []byte

// Marker is planted in the fixture only in content that must never appear
// in any output.
const Marker = "ZEBRAMARKER"

// hidden are the fixture's files no answer may name: secret-looking,
// private, runtime, ignored or holding a credential.
var hidden = []string{".env", "api-token", "plan.md", "receipts.md", "leak.md", "vivary-tmp"}

// Fixture builds the fixture workspace (fixture.txtar: the scaffold plus
// typed folders, nested decisions, broken refs, ignored folders,
// secret-looking files and a vivary_fact) in a temp dir.
func Fixture(t testing.TB) string {
	t.Helper()
	extra := map[string]string{}
	for _, f := range txtar.Parse(fixture).Files {
		extra[f.Name] = string(f.Data)
	}
	return Thin(t, extra)
}

// NoLeak fails the test if an answer over the fixture at root holds the
// planted marker, the root path or the name of a file no answer may name.
func NoLeak(t testing.TB, root string, b []byte) {
	t.Helper()
	if bytes.Contains(b, []byte(Marker)) {
		t.Errorf("output holds planted secret content:\n%s", b)
	}
	if bytes.Contains(b, []byte(root)) {
		t.Errorf("output holds the root path")
	}
	for _, name := range hidden {
		if strings.Contains(string(b), name) {
			t.Errorf("output names %q", name)
		}
	}
}

// IndentedJSON is the compact sorted JSON of v, indented for golden files.
func IndentedJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := canon.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// Golden compares got with testdata/name, or writes it there when update
// is set (go test -update in the packages that offer the flag).
func Golden(t testing.TB, update bool, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
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
