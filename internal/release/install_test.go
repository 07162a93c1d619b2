package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// pseudoRelease is the version the tree is published at: any release
// version works; this one cannot be mistaken for a real one.
const pseudoRelease = "v0.9.9-pseudo"

// goInstallLine is an install one-liner of the README.
var goInstallLine = regexp.MustCompile(`(?m)^\s*go install (github\.com/vivary-dev/vivary-go/\S+)@latest\s*$`)

// TestGoInstallFromAProxy publishes this tree to a file-based module proxy,
// as the release script would tag it, and runs the README's own `go install
// …@latest` lines against it, offline: the dependencies come from the local
// module cache, which has the file proxy layout. Each installed binary then
// names the release in --version, and doctor finds the adapter by it.
func TestGoInstallFromAProxy(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, m := range goInstallLine.FindAllStringSubmatch(string(readme), -1) {
		pkgs = append(pkgs, m[1])
	}
	want := []string{RootModule + "/cmd/vivary", RootModule + "/cmd/create-vivary", MCPModule + "/cmd/vivary-mcp"}
	if strings.Join(pkgs, " ") != strings.Join(want, " ") {
		t.Fatalf("README's go install lines name %q, want %q", pkgs, want)
	}

	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	if err := PublishTree(repo, proxy, pseudoRelease, time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := filepath.Join(strings.TrimSpace(string(modcache)), "cache", "download")
	bin := filepath.Join(tmp, "bin")
	env := append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(deps),
		"GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=", "GONOPROXY=", "GOWORK=off", "GOTOOLCHAIN=local",
		// -modcacherw: so the temporary module cache can be removed;
		// -trimpath: so the build cache serves the next run, whatever the
		// temporary module cache's path.
		"GOFLAGS=-modcacherw -trimpath",
		"GOMODCACHE="+filepath.Join(tmp, "modcache"), "GOPATH="+filepath.Join(tmp, "gopath"), "GOBIN="+bin)
	for _, pkg := range pkgs {
		cmd := exec.Command("go", "install", pkg+"@latest")
		cmd.Dir = tmp // outside any module, as a user would be
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go install %s@latest: %v\n%s", pkg, err, out)
		}
		name := filepath.Base(pkg)
		out, err := exec.Command(filepath.Join(bin, name), "--version").Output()
		if err != nil || string(out) != name+" "+pseudoRelease+"\n" {
			t.Errorf("%s --version: %q %v, want %q", name, out, err, name+" "+pseudoRelease+"\n")
		}
	}

	ws := filepath.Join(tmp, "ws")
	if out, err := exec.Command(filepath.Join(bin, "create-vivary"), "init", ws).CombinedOutput(); err != nil {
		t.Fatalf("create-vivary init: %v\n%s", err, out)
	}
	doctor := exec.Command(filepath.Join(bin, "create-vivary"), "doctor", "--workspace", ws, "--json")
	doctor.Env = append(os.Environ(), "PATH="+bin, "GOBIN=", "GOPATH="+filepath.Join(tmp, "none"))
	out, _ := doctor.Output()
	if !bytes.Contains(out, []byte(`"adapter_version": "`+pseudoRelease+`"`)) || !bytes.Contains(out, []byte(`"install_status": "installed"`)) {
		t.Errorf("doctor does not report the installed adapter %s:\n%s", pseudoRelease, out)
	}
}
