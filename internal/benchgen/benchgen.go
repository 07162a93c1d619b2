// Package benchgen writes a realistic, deterministic workspace for
// benchmarks: a thin scaffold plus typed notes with frontmatter refs across
// the record folders, about 5 KiB of prose each, drawn from a small
// vocabulary or, like a person's notes, from a Zipf distribution over
// about 200,000 distinct words.
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
	fields      func(w *words, id string, ids []string) string
}{
	{"changes", "change", func(w *words, id string, ids []string) string {
		return fmt.Sprintf("project: bench\nstatus: active\nslice: %s\nrelated_modules: [%s]\n", w.next(), pick(w.r, ids, 2))
	}},
	{"decisions", "decision", func(w *words, id string, ids []string) string {
		return fmt.Sprintf("project: bench\nstatus: accepted\ndate: 2026-%02d-%02d\nrelated_changes: [%s]\n", 1+w.r.Intn(12), 1+w.r.Intn(28), pick(w.r, ids, 3))
	}},
	{"modules", "module", func(w *words, id string, ids []string) string {
		return fmt.Sprintf("project: bench\nstatus: active\nmodule_area: %s\nrelated_changes: [%s]\ntags: [%s, %s]\n", w.next(), pick(w.r, ids, 2), w.next(), w.next())
	}},
	{"verification", "verification", func(w *words, id string, ids []string) string {
		return fmt.Sprintf("project: bench\nstatus: passed\ntarget: %s\nrelated_changes: [%s]\n", w.next(), pick(w.r, ids, 1))
	}},
}

// Vocab is the words a generated note is made of.
type Vocab int

const (
	// Small draws every word uniformly from the 80 words of vocabulary:
	// few distinct terms, so a small index.
	Small Vocab = iota
	// Zipf draws word ranks from a Zipf distribution over ZipfWords
	// distinct words, as real prose has them: a few very common words and
	// a long tail that makes most of the index. The first ranks are the
	// small vocabulary's words, so the same questions find notes.
	Zipf
)

// ZipfWords is how many distinct words the Zipf vocabulary has.
const ZipfWords = 200_000

// zipfS is the exponent of the rank distribution; English prose is close
// to 1 (math/rand needs more than 1).
const zipfS = 1.07

// words draws the words of one workspace.
type words struct {
	r    *rand.Rand
	zipf *rand.Zipf
}

func newWords(r *rand.Rand, v Vocab) *words {
	w := &words{r: r}
	if v == Zipf {
		w.zipf = rand.NewZipf(r, zipfS, 1, ZipfWords-1)
	}
	return w
}

func (w *words) next() string {
	if w.zipf == nil {
		return vocabulary[w.r.Intn(len(vocabulary))]
	}
	return zipfWord(int(w.zipf.Uint64()))
}

// syllables make the Zipf vocabulary's words past the small vocabulary:
// rank i is spelt by the digits of i in base len(syllables), two
// syllables for the first ranks and three for the rest, so every rank
// is its own word and rarer words are longer.
var syllables = func() (out []string) {
	for _, c := range "bdfgklmnprstvz" {
		for _, v := range "aeiou" {
			out = append(out, string(c)+string(v))
		}
	}
	return out
}()

func zipfWord(rank int) string {
	if rank < len(vocabulary) {
		return vocabulary[rank]
	}
	n, k := rank-len(vocabulary), len(syllables)
	if n < k*k {
		return syllables[n/k] + syllables[n%k]
	}
	n -= k * k
	return syllables[n/(k*k)%k] + syllables[n/k%k] + syllables[n%k] + "n"
}

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
// bodyBytes each, of the small vocabulary. The same arguments always give
// the same bytes.
func Write(root string, notes, bodyBytes int) error { return WriteVocab(root, notes, bodyBytes, Small) }

// WriteVocab is Write with the words of v.
func WriteVocab(root string, notes, bodyBytes int, v Vocab) error {
	for _, f := range scaffold.Files(filepath.Base(root), scaffold.DefaultPreset) {
		if err := write(root, f.Path, f.Content); err != nil {
			return err
		}
	}
	r := rand.New(rand.NewSource(1))
	w := newWords(r, v)
	var ids []string
	for i := 0; i < notes; i++ {
		k := kinds[i%len(kinds)]
		id := fmt.Sprintf("%s-%s-%05d", w.next(), w.next(), i)
		var body strings.Builder
		fmt.Fprintf(&body, "---\n%s---\n# %s %s note %d\n\n", k.fields(w, id, ids), title(w.next()), w.next(), i)
		for body.Len() < bodyBytes {
			n := 8 + r.Intn(20)
			for j := 0; j < n; j++ {
				body.WriteString(w.next())
				body.WriteByte(' ')
			}
			body.WriteString(".\n")
			if r.Intn(6) == 0 {
				body.WriteString("\n## " + w.next() + "\n\n")
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
