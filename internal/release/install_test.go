package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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

	archiveInstall(t, readme, repo, bin)

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

var (
	// archiveLine is the README's release-archive one-liner.
	archiveLine = regexp.MustCompile(`(?m)^ +(mkdir -p ~/\.local/bin && curl -fsSL https://github\.com/vivary-dev/vivary-go/releases/latest/download/vivary_\w+_\w+\.tar\.gz \| tar .*)$`)
	// pathLine is the README's line that puts ~/.local/bin on PATH.
	pathLine = regexp.MustCompile(`(?m)^ +(export PATH="\$HOME/\.local/bin:\$PATH".*)$`)
)

// archiveInstall runs the README's archive one-liner, as it is written, on
// a fresh account: an empty HOME (no ~/.local/bin yet) and a PATH of the
// system's folders only. The download is a curl on PATH that serves, for
// the README's URL and no other, an archive of GoReleaser's layout (the
// three binaries and the README at its top, see .goreleaser.yaml) made of
// the binaries bin holds. Then the README's PATH line makes them found:
// in the shell that runs it, and in every new login shell.
func archiveInstall(t *testing.T, readme []byte, repo, bin string) {
	t.Helper()
	line := archiveLine.FindSubmatch(readme)
	put := pathLine.FindSubmatch(readme)
	if line == nil || put == nil {
		t.Fatalf("README has no archive one-liner (%v) or no PATH line (%v)", line != nil, put != nil)
	}
	tmp := t.TempDir()
	archive := filepath.Join(tmp, "vivary.tar.gz")
	files := map[string]string{"README.md": filepath.Join(repo, "README.md"), "LICENSE": filepath.Join(repo, "LICENSE")}
	for _, b := range []string{"vivary", "create-vivary", "vivary-mcp"} {
		files[b] = filepath.Join(bin, b)
	}
	writeArchive(t, archive, files)
	fake := filepath.Join(tmp, "fakebin")
	if err := os.Mkdir(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	curl := "#!/bin/sh\n# The README's download, served from the archive this test made.\n" +
		`if [ "$#" = 2 ] && [ "$1" = -fsSL ]; then case "$2" in https://github.com/vivary-dev/vivary-go/releases/latest/download/vivary_*_*.tar.gz) exec cat "$ARCHIVE";; esac; fi` + "\n" +
		`echo "curl: unexpected arguments: $*" >&2; exit 22` + "\n"
	if err := os.WriteFile(filepath.Join(fake, "curl"), []byte(curl), 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	system := "/usr/local/bin:/usr/bin:/bin"
	shell := func(path string, login bool, script string) (string, error) {
		args := []string{"-c", script}
		if login {
			args = append([]string{"-l"}, args...)
		}
		cmd := exec.Command("/bin/sh", args...)
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "PATH=" + path, "ARCHIVE=" + archive, "LC_ALL=C"}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := shell(fake+":"+system, false, string(line[1])); err != nil {
		t.Fatalf("the README's archive line on a fresh account: %v\n%s", err, out)
	}
	for _, b := range []string{"vivary", "create-vivary", "vivary-mcp"} {
		if st, err := os.Stat(filepath.Join(home, ".local", "bin", b)); err != nil || st.Mode()&0o111 == 0 {
			t.Errorf("the README's archive line did not install %s: %v", b, err)
		}
	}
	// Before the PATH line the binaries are not found, after it they are.
	if out, err := shell(system, false, "vivary --version"); err == nil {
		t.Errorf("vivary was found before the README's PATH line: %s", out)
	}
	want := "vivary " + pseudoRelease + "\n"
	if out, err := shell(system, false, string(put[1])+"\nvivary --version"); err != nil || out != want {
		t.Errorf("the README's PATH line, then vivary --version: %q %v, want %q", out, err, want)
	}
	for _, b := range []string{"vivary", "create-vivary", "vivary-mcp"} {
		if out, err := shell(system, true, b+" --version"); err != nil || out != b+" "+pseudoRelease+"\n" {
			t.Errorf("a new login shell after the README's PATH line, %s --version: %q %v", b, out, err)
		}
	}
}

// writeArchive writes a gzipped tar of files (name in the archive -> file),
// flat, as GoReleaser lays out the release archives.
func writeArchive(t *testing.T, dst string, files map[string]string) {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data, err := os.ReadFile(files[name])
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(files[name])
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: int64(st.Mode().Perm()), Size: int64(len(data)), ModTime: st.ModTime(), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []interface{ Close() error }{tw, zw} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
