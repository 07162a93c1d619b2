package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// npmPlatforms maps GoReleaser's GOOS/GOARCH to npm's os/cpu names.
var npmPlatforms = map[[2]string][2]string{
	{"darwin", "arm64"}:  {"darwin", "arm64"},
	{"darwin", "amd64"}:  {"darwin", "x64"},
	{"linux", "arm64"}:   {"linux", "arm64"},
	{"linux", "amd64"}:   {"linux", "x64"},
	{"windows", "arm64"}: {"win32", "arm64"},
	{"windows", "amd64"}: {"win32", "x64"},
}

// npmBinary is vivary-mcp's file name in the package for npm's os.
func npmBinary(goos string) string {
	if goos == "win32" {
		return "vivary-mcp.exe"
	}
	return "vivary-mcp"
}

// artifact is the part of an entry of GoReleaser's dist/artifacts.json
// read here.
type artifact struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	GOOS   string `json:"goos"`
	GOARCH string `json:"goarch"`
	Type   string `json:"type"`
}

// NPM writes the npm packages of a release into out: one per platform
// (@vivary/vivary-mcp-OS-CPU, holding that platform's vivary-mcp from
// GoReleaser's dist, restricted by os and cpu) and the launcher vivary-mcp
// (npm/vivary-mcp in this repository), all at version. None has an install
// script. With all false, platforms missing from dist are left out (a test
// builds only its own).
func NPM(repo, dist, out, version string, all bool) error {
	npmVersion := strings.TrimPrefix(version, "v")
	raw, err := os.ReadFile(filepath.Join(dist, "artifacts.json"))
	if err != nil {
		return fmt.Errorf("GoReleaser's artifacts list: %w", err)
	}
	var arts []artifact
	if err := json.Unmarshal(raw, &arts); err != nil {
		return fmt.Errorf("GoReleaser's artifacts list: %w", err)
	}
	done := map[[2]string]bool{}
	for _, a := range arts {
		p, ok := npmPlatforms[[2]string{a.GOOS, a.GOARCH}]
		if a.Type != "Binary" || strings.TrimSuffix(a.Name, ".exe") != "vivary-mcp" || !ok {
			continue
		}
		if done[p] {
			return fmt.Errorf("two vivary-mcp binaries for %s/%s in %s", a.GOOS, a.GOARCH, dist)
		}
		done[p] = true
		bin := a.Path
		if !filepath.IsAbs(bin) {
			// GoReleaser records paths relative to the directory it ran in,
			// the one holding dist.
			bin = filepath.Join(filepath.Dir(filepath.Clean(dist)), bin)
		}
		if err := platformPackage(out, bin, p[0], p[1], npmVersion); err != nil {
			return err
		}
	}
	if all && len(done) != len(npmPlatforms) {
		return fmt.Errorf("%s has vivary-mcp for %d of the %d platforms", dist, len(done), len(npmPlatforms))
	}
	if len(done) == 0 {
		return fmt.Errorf("%s has no vivary-mcp binary", dist)
	}
	return launcherPackage(repo, out, npmVersion)
}

func platformPackage(out, bin, goos, cpu, version string) error {
	name := "vivary-mcp-" + goos + "-" + cpu
	dir := filepath.Join(out, "@vivary", name)
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", npmBinary(goos)), data, 0o755); err != nil {
		return err
	}
	manifest, err := json.MarshalIndent(map[string]any{
		"name":        "@vivary/" + name,
		"version":     version,
		"description": fmt.Sprintf("The vivary-mcp binary for %s %s; install vivary-mcp, which picks it.", goos, cpu),
		"license":     "MIT",
		"homepage":    "https://github.com/vivary-dev/vivary-go#readme",
		"repository":  map[string]string{"type": "git", "url": "git+https://github.com/vivary-dev/vivary-go.git"},
		"os":          []string{goos},
		"cpu":         []string{cpu},
		"files":       []string{"bin/" + npmBinary(goos)},
		// Run in place by Yarn's Plug'n'Play too.
		"preferUnplugged": true,
	}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "package.json"), append(manifest, '\n'), 0o644)
}

func launcherPackage(repo, out, version string) error {
	src := filepath.Join(repo, "npm", "vivary-mcp")
	dst := filepath.Join(out, "vivary-mcp")
	if err := os.MkdirAll(filepath.Join(dst, "bin"), 0o755); err != nil {
		return err
	}
	manifest, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		return err
	}
	const dev = `"0.0.0-dev"`
	if strings.Count(string(manifest), dev) != 1+len(npmPlatforms) {
		return fmt.Errorf("npm/vivary-mcp/package.json should name version %s for itself and its %d platform packages", dev, len(npmPlatforms))
	}
	manifest = []byte(strings.ReplaceAll(string(manifest), dev, `"`+version+`"`))
	if err := os.WriteFile(filepath.Join(dst, "package.json"), manifest, 0o644); err != nil {
		return err
	}
	for name, mode := range map[string]os.FileMode{"README.md": 0o644, filepath.Join("bin", "vivary-mcp.js"): 0o755} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, mode); err != nil {
			return err
		}
	}
	return nil
}
