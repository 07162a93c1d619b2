package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/cli"
)

// TestREADMEFirstCommands runs the README's "First commands" as they are
// written, over a copy of the example workspace (a checkout may be a
// linked worktree, in which the original would refuse): the find prints
// exactly the ranked, bounded answer the README shows, and the check is
// clean.
func TestREADMEFirstCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	start := strings.Index(section, "\n## First commands\n")
	if start < 0 {
		t.Fatal(`README has no "First commands" section`)
	}
	section = section[start+1:]
	section = section[:strings.Index(section[1:], "\n## ")+1]
	blocks := indented(section)
	if len(blocks) < 3 {
		t.Fatalf("First commands has %d indented blocks, want the find, its answer and the check", len(blocks))
	}
	ws := filepath.Join(t.TempDir(), "workspace")
	if err := os.CopyFS(ws, os.DirFS("../../examples/workspace")); err != nil {
		t.Fatal(err)
	}
	run := func(line string) (int, string, string) {
		t.Helper()
		const prefix = "go run ./cmd/vivary "
		if !strings.HasPrefix(line, prefix) {
			t.Fatalf("README command %q does not start with %q", line, prefix)
		}
		args := shellWords(t, strings.TrimPrefix(line, prefix))
		for i, a := range args {
			if a == "examples/workspace" {
				args[i] = ws
			}
		}
		var stdout, stderr bytes.Buffer
		code := cli.Vivary(args, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	find, answer, check := blocks[0], blocks[1], blocks[2]
	if !strings.HasPrefix(find, "go run ./cmd/vivary find ") {
		t.Fatalf("the first command is not a find: %q", find)
	}
	code, out, errs := run(strings.TrimSuffix(find, "\n"))
	if code != cli.ExitOK || out != answer || errs != "" {
		t.Errorf("the README's find: exit %d, stderr %q, stdout\n%s\nwant the README's answer\n%s", code, errs, out, answer)
	}
	if strings.Count(answer, "\n") < 4 || !strings.Contains(answer, "estimated tokens: ") {
		t.Errorf("the README's answer shows no ranked, bounded context:\n%s", answer)
	}
	code, out, errs = run(strings.TrimSuffix(check, "\n"))
	if code != cli.ExitOK || !strings.HasPrefix(out, "checked ") || !strings.Contains(out, " 0 errors, 0 warnings") || errs != "" {
		t.Errorf("the README's check: exit %d\n%s%s", code, out, errs)
	}
}

// indented returns the text's code blocks indented by four spaces, each
// with the indentation removed and a newline after every line.
func indented(text string) []string {
	var blocks []string
	var cur strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "    "); ok {
			cur.WriteString(rest + "\n")
			continue
		}
		if cur.Len() > 0 {
			blocks = append(blocks, cur.String())
			cur.Reset()
		}
	}
	return blocks
}

// shellWords splits a command line as a shell would, for the forms the
// README uses: bare words and double-quoted ones.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			end := strings.IndexByte(line[1:], '"')
			if end < 0 {
				t.Fatalf("unterminated quote in %q", line)
			}
			words = append(words, line[1:end+1])
			line = line[end+2:]
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		words = append(words, word)
		line = rest
	}
	return words
}
