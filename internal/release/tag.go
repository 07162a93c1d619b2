package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// workReplace matches go.work's replace of the root module's release.
var workReplace = regexp.MustCompile(`(?m)^replace ` + regexp.QuoteMeta(RootModule) + ` v\S+ => \./$`)

func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// Tag makes the release's two tags. The adapter's go.mod is first pointed
// at the root module's new version (its go.sum lines computed here exactly
// as the go command will) and committed; then the root is tagged VERSION
// and the adapter mcp/VERSION, both at that commit. The root module's
// content excludes mcp/, so that commit publishes the same root the hash
// was computed from, and every binary built there (go install or
// GoReleaser) reads its version from a tag at HEAD.
func Tag(repo, version string, out io.Writer) error {
	status, err := git(repo, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return err
	}
	if status != "" {
		return fmt.Errorf("the working tree is not clean; commit or stash first:\n%s", status)
	}
	mcpTag := mcpDir + "/" + version
	for _, t := range []string{version, mcpTag} {
		if _, err := git(repo, "rev-parse", "--verify", "--quiet", "refs/tags/"+t); err == nil {
			return fmt.Errorf("tag %s already exists", t)
		}
	}
	// go.work is part of the root module, so it is rewritten before the
	// root's hash is taken.
	work, err := os.ReadFile(filepath.Join(repo, "go.work"))
	if err != nil {
		return err
	}
	if !workReplace.Match(work) {
		return fmt.Errorf("go.work has no `replace %s vX.Y.Z => ./`", RootModule)
	}
	work = workReplace.ReplaceAll(work, []byte("replace "+RootModule+" "+version+" => ./"))
	if err := os.WriteFile(filepath.Join(repo, "go.work"), work, 0o644); err != nil {
		return err
	}
	_, mcp, err := readPinned(repo, version)
	if err != nil {
		return err
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := os.WriteFile(filepath.Join(repo, mcpDir, f), mcp.data[f], 0o644); err != nil {
			return err
		}
	}
	if status, err := git(repo, "status", "--porcelain"); err != nil {
		return err
	} else if status != "" {
		if _, err := git(repo, "commit", "-q", "-m", "mcp: require vivary-go "+version, "--", "go.work", mcpDir+"/go.mod", mcpDir+"/go.sum"); err != nil {
			return err
		}
	}
	if _, err := git(repo, "tag", "-a", version, "-m", "vivary-go "+version); err != nil {
		return err
	}
	if _, err := git(repo, "tag", "-a", mcpTag, "-m", "vivary-go/mcp "+version); err != nil {
		return err
	}
	fmt.Fprintf(out, "tagged %s and %s. Next:\n"+
		"  git push origin HEAD %s %s\n"+
		"  GORELEASER_CURRENT_TAG=%s goreleaser release --clean\n"+
		"  go run ./internal/release npm dist npm-out %s\n"+
		"  npm publish --access public npm-out/@vivary/<each platform>, then npm publish npm-out/vivary-mcp\n",
		version, mcpTag, version, mcpTag, version, version)
	return nil
}
