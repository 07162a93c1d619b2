package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vivary-dev/vivary-go/scaffold"
)

// corpus is a public documentation set the bench reads where it is
// installed: nothing of it is kept in this repository, only the questions
// asked of it and their judged answers.
type corpus struct {
	name, version, licence string
	// locate returns the folder of the Markdown notes, or why it cannot.
	locate    func() (string, error)
	questions []question
	// heldOut says the set was split: only the tune half may guide the
	// ranking; the other is reported, never tuned on.
	heldOut bool
}

// corpora are the development sets of the ranking. Each was written by
// others; the questions were written and judged by reading the notes
// before the ranking was tuned on them.
var corpora = []corpus{
	{name: "rclone docs", version: "github.com/rclone/rclone v1.73.0 docs/content", licence: "MIT",
		locate: goModule("github.com/rclone/rclone@v1.73.0", "docs/content"), questions: rcloneQuestions, heldOut: true},
	{name: "docker cli reference", version: "github.com/docker/cli v29.5.3+incompatible docs/reference/commandline", licence: "Apache-2.0",
		locate: goModule("github.com/docker/cli@v29.5.3+incompatible", "docs/reference/commandline"), questions: dockerQuestions, heldOut: true},
	{name: "node.js api docs", version: "Debian package nodejs 20.20.2 (/usr/share/doc/nodejs/api)", licence: "MIT",
		locate: installed("/usr/share/doc/nodejs/api", "apt-get install nodejs (the Node.js 20 package that ships /usr/share/doc/nodejs/api)"), questions: nodejsQuestions, heldOut: true},
}

// goModule finds a module's folder in the module cache, downloading the
// pinned version through the Go module proxy when it is not there.
func goModule(modVersion, sub string) func() (string, error) {
	return func() (string, error) {
		out, err := exec.Command("go", "mod", "download", "-json", modVersion).Output()
		if err != nil {
			return "", fmt.Errorf("go mod download %s: %v", modVersion, err)
		}
		var m struct{ Dir, Error string }
		if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
			return "", fmt.Errorf("go mod download %s: %s", modVersion, m.Error)
		}
		return filepath.Join(m.Dir, filepath.FromSlash(sub)), nil
	}
}

func installed(dir, how string) func() (string, error) {
	return func() (string, error) {
		if _, err := os.Stat(dir); err != nil {
			return "", fmt.Errorf("%s is not installed: %s", dir, how)
		}
		return dir, nil
	}
}

// halfOf is which half of a split set a question is in, "tune" or
// "held-out", decided by a hash of its text so that neither the author
// nor the ranking chose it.
func halfOf(q question) string {
	f := fnv.New32a()
	f.Write([]byte(q.text))
	return [...]string{"tune", "held-out"}[f.Sum32()%2]
}

// corpusWorkspace is a scaffolded workspace (so its contract files are
// there to be ranked, as in a user's) holding a copy of the corpus's
// Markdown under docs/, made in the bench's temporary folder.
func corpusWorkspace(root, src string) error {
	for _, f := range scaffold.Files(filepath.Base(root), scaffold.DefaultPreset) {
		if err := write(root, f.Path, f.Content); err != nil {
			return err
		}
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return write(root, "docs/"+filepath.ToSlash(rel), string(b))
	})
}

// docKey is the answer key of a workspace path: its path under docs/
// without ".md"; other paths (the contract files) keep theirs.
func docKey(path string) string {
	if rest, ok := strings.CutPrefix(path, "docs/"); ok {
		return strings.TrimSuffix(rest, ".md")
	}
	return path
}
