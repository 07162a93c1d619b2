// Package benchgen writes a realistic, deterministic workspace for
// benchmarks: a thin scaffold plus typed notes with frontmatter refs across
// the record folders, about 5 KiB of prose each.
package benchgen

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"github.com/vivary-dev/vivary-go/scaffold"
)

var vocabulary = strings.Fields(`adapter boundary budget cache capsule change check client commit context
decision default digest document edge envelope evidence field filter fingerprint folder frame gate graph
heading identity ignore index limit link markdown module omission path plan policy privacy producer
project query record reference refusal result root schema search session slot snapshot snippet source
state status stdio task term timeout title tool type validation verification workspace write
quokka wallaby platypus echidna kookaburra wombat bilby numbat dingo cassowary`)

var kinds = []struct {
	folder, typ string
	fields      func(r *rand.Rand, id string, ids []string) string
}{
	{"changes", "change", func(r *rand.Rand, id string, ids []string) string {
		return fmt.Sprintf("project: bench\nstatus: active\nslice: %s\nrelated_modules: [%s]\n", word(r), pick(r, ids, 2))
	}},
	{"decisions", "decision", func(r *rand.Rand, id string, ids []string) string {
		return fmt.Sprintf("project: bench\nstatus: accepted\ndate: 2026-%02d-%02d\nrelated_changes: [%s]\n", 1+r.Intn(12), 1+r.Intn(28), pick(r, ids, 3))
	}},
	{"modules", "module", func(r *rand.Rand, id string, ids []string) string {
		return fmt.Sprintf("project: bench\nstatus: active\nmodule_area: %s\nrelated_changes: [%s]\ntags: [%s, %s]\n", word(r), pick(r, ids, 2), word(r), word(r))
	}},
	{"verification", "verification", func(r *rand.Rand, id string, ids []string) string {
		return fmt.Sprintf("project: bench\nstatus: passed\ntarget: %s\nrelated_changes: [%s]\n", word(r), pick(r, ids, 1))
	}},
}

func word(r *rand.Rand) string { return vocabulary[r.Intn(len(vocabulary))] }

func pick(r *rand.Rand, ids []string, n int) string {
	if len(ids) == 0 {
		return ""
	}
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, ids[r.Intn(len(ids))])
	}
	return strings.Join(out, ", ")
}

// Write creates root with the scaffold and notes typed notes of about
// bodyBytes each. The same arguments always give the same bytes.
func Write(root string, notes, bodyBytes int) error {
	for _, f := range scaffold.Files(filepath.Base(root), scaffold.DefaultPreset) {
		if err := write(root, f.Path, f.Content); err != nil {
			return err
		}
	}
	r := rand.New(rand.NewSource(1))
	var ids []string
	for i := 0; i < notes; i++ {
		k := kinds[i%len(kinds)]
		id := fmt.Sprintf("%s-%s-%05d", word(r), word(r), i)
		var body strings.Builder
		fmt.Fprintf(&body, "---\n%s---\n# %s %s note %d\n\n", k.fields(r, id, ids), title(word(r)), word(r), i)
		for body.Len() < bodyBytes {
			n := 8 + r.Intn(20)
			for j := 0; j < n; j++ {
				body.WriteString(word(r))
				body.WriteByte(' ')
			}
			body.WriteString(".\n")
			if r.Intn(6) == 0 {
				body.WriteString("\n## " + word(r) + "\n\n")
			}
		}
		rel := fmt.Sprintf(".vivary/records/%s/%03d/%s.md", k.folder, i/100, id)
		if err := write(root, rel, body.String()); err != nil {
			return err
		}
		ids = append(ids, id)
	}
	return nil
}

func write(root, rel, content string) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// title capitalises an ASCII word (the generator's words are all ASCII).
func title(w string) string { return strings.ToUpper(w[:1]) + w[1:] }
