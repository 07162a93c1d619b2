package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The two modules a release publishes, the adapter's directory, and the
// root module's path.
const (
	RootModule = "github.com/vivary-dev/vivary-go"
	MCPModule  = RootModule + "/mcp"
	mcpDir     = "mcp"
)

// module is one module's published content: file names relative to its
// root, slash-separated and sorted, with their bytes.
type module struct {
	path  string
	names []string
	data  map[string][]byte
}

// readModule reads what the module rooted at repo/dir publishes: the files
// Git tracks or would track (so a release and a test of the working tree
// see the same set), minus nested modules, which publish themselves.
func readModule(repo, dir, modPath string) (*module, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".")
	cmd.Dir = filepath.Join(repo, dir)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", cmd.Dir, err)
	}
	var files []string
	nested := map[string]bool{}
	seen := map[string]bool{}
	for _, name := range strings.Split(string(out), "\x00") {
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		files = append(files, name)
		if path.Base(name) == "go.mod" && name != "go.mod" {
			nested[path.Dir(name)] = true
		}
	}
	m := &module{path: modPath, data: map[string][]byte{}}
	for _, name := range files {
		if inNested(name, nested) {
			continue
		}
		full := filepath.Join(cmd.Dir, filepath.FromSlash(name))
		// A tracked file deleted in the working tree is not published, and
		// the module zip format holds regular files only.
		st, err := os.Lstat(full)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(full)
		if err != nil {
			return nil, err
		}
		m.names = append(m.names, name)
		m.data[name] = b
	}
	sort.Strings(m.names)
	if _, ok := m.data["go.mod"]; !ok {
		return nil, fmt.Errorf("%s has no go.mod", cmd.Dir)
	}
	return m, nil
}

func inNested(name string, nested map[string]bool) bool {
	for d := path.Dir(name); d != "."; d = path.Dir(d) {
		if nested[d] {
			return true
		}
	}
	return false
}

// hash1 is the go.sum "h1:" hash of named files: SHA-256 over the sorted
// lines "<sha256 hex>  <name>\n" (the go command's dirhash.Hash1).
func hash1(names []string, data func(string) []byte) string {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	var summary bytes.Buffer
	for _, n := range sorted {
		fmt.Fprintf(&summary, "%x  %s\n", sha256.Sum256(data(n)), n)
	}
	sum := sha256.Sum256(summary.Bytes())
	return "h1:" + base64.StdEncoding.EncodeToString(sum[:])
}

// sums are the two go.sum lines a dependent needs for m at version.
func (m *module) sums(version string) string {
	prefix := m.path + "@" + version + "/"
	zipNames := make([]string, len(m.names))
	for i, n := range m.names {
		zipNames[i] = prefix + n
	}
	zipHash := hash1(zipNames, func(n string) []byte { return m.data[strings.TrimPrefix(n, prefix)] })
	modHash := hash1([]string{"go.mod"}, func(string) []byte { return m.data["go.mod"] })
	return fmt.Sprintf("%s %s %s\n%s %s/go.mod %s\n", m.path, version, zipHash, m.path, version, modHash)
}

// requireLine matches the adapter's requirement on the root module.
var requireLine = regexp.MustCompile(`(?m)^require ` + regexp.QuoteMeta(RootModule) + ` v\S+$`)

// pinRoot points the adapter's go.mod at the root module's version and adds
// that version's sums to its go.sum: what makes `go install` of the adapter
// resolve the root module a release published just before it.
func pinRoot(mcp, root *module, version string) error {
	gomod := mcp.data["go.mod"]
	if !requireLine.Match(gomod) {
		return fmt.Errorf("%s/go.mod has no single-line `require %s vX.Y.Z`", mcpDir, RootModule)
	}
	mcp.data["go.mod"] = requireLine.ReplaceAll(gomod, []byte("require "+RootModule+" "+version))
	var kept []string
	for _, line := range strings.SplitAfter(string(mcp.data["go.sum"]), "\n") {
		if line != "" && !strings.HasPrefix(line, RootModule+" ") {
			kept = append(kept, line)
		}
	}
	sum := strings.Join(kept, "") + root.sums(version)
	if _, ok := mcp.data["go.sum"]; !ok {
		mcp.names = append(mcp.names, "go.sum")
		sort.Strings(mcp.names)
	}
	mcp.data["go.sum"] = []byte(sum)
	return nil
}

// publish writes m at version into a file-based module proxy (the layout
// GOPROXY=file://DIR reads: see `go help goproxy`).
func (m *module) publish(proxy, version string, at time.Time) error {
	dir := filepath.Join(proxy, filepath.FromSlash(m.path), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for _, n := range m.names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.path + "@" + version + "/" + n, Method: zip.Deflate, Modified: at})
		if err != nil {
			return err
		}
		if _, err := w.Write(m.data[n]); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	info := fmt.Sprintf("{\"Version\":%q,\"Time\":%q}\n", version, at.UTC().Format(time.RFC3339))
	for name, b := range map[string][]byte{
		version + ".zip":  zbuf.Bytes(),
		version + ".mod":  m.data["go.mod"],
		version + ".info": []byte(info),
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// PublishTree publishes the working tree at repo as version of both modules,
// the adapter requiring the root at that same version, as a release would.
func PublishTree(repo, proxy, version string, at time.Time) error {
	root, mcp, err := readPinned(repo, version)
	if err != nil {
		return err
	}
	if err := root.publish(proxy, version, at); err != nil {
		return err
	}
	return mcp.publish(proxy, version, at)
}

// readPinned reads both modules of the tree at repo, the adapter's go.mod
// and go.sum rewritten to require the root at version.
func readPinned(repo, version string) (root, mcp *module, err error) {
	if root, err = readModule(repo, ".", RootModule); err != nil {
		return nil, nil, err
	}
	if mcp, err = readModule(repo, mcpDir, MCPModule); err != nil {
		return nil, nil, err
	}
	return root, mcp, pinRoot(mcp, root, version)
}
