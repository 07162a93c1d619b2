package search_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/search"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// ranked is the paths a full index over a thin workspace holding docs
// ranks for each question, best first.
func ranked(t *testing.T, docs map[string]string, questions ...string) map[string][]string {
	t.Helper()
	root := testws.Thin(t, docs)
	ws := testws.Bind(t, root)
	ctx := context.Background()
	snap, err := snapshot.Take(ctx, ws, snapshot.Options{Prepare: search.Prepare})
	if err != nil {
		t.Fatal(err)
	}
	ix := search.NewIndex()
	if err := ix.Update(snap, read(ws)); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, q := range questions {
		hits, err := ix.Search(ctx, search.Query{Text: q, K: 10, Read: read(ws)})
		if err != nil {
			t.Fatal(err)
		}
		out[q] = []string{}
		for _, h := range hits {
			out[q] = append(out[q], h.Doc.Path)
		}
	}
	return out
}

// filler is n notes about other things that share common words with the
// questions below.
func filler(n int) map[string]string {
	docs := map[string]string{}
	for i := range n {
		docs[fmt.Sprintf("pages/tool%02d.md", i)] = fmt.Sprintf("# tool%02d\n\n> Work with files and directories.\n\n- Show the files in a directory:\n\n`tool%02d --files`\n", i, i)
	}
	return docs
}

// A question word such as "find" is a search term after all in a vault
// where it names a note: "how do I find large files" reaches find.md. In
// a vault without such a note it stays a question word, so a note that
// says "find" often does not win on it.
func TestVaultNamesAreNotStopwords(t *testing.T) {
	docs := filler(20)
	docs["pages/du.md"] = "# du\n\n> Disk usage: show large directories and files.\n"
	docs["pages/find.md"] = "# find\n\n> Find files or directories under a directory tree, recursively.\n\n- Find files bigger than 1 GB:\n\n`find . -size +1G`\n"
	q := "how do I find large files"
	if got := ranked(t, docs, q)[q]; len(got) == 0 || got[0] != "pages/find.md" {
		t.Errorf("%q ranks %v, want pages/find.md first", q, got)
	}

	docs = filler(20)
	docs["pages/seek.md"] = "# seek\n\n> Find, find and find again.\n"
	if got := ranked(t, docs, q)[q]; slices.Contains(got, "pages/seek.md") {
		t.Errorf("%q ranks %v: find counted in a vault where no note is named find", q, got)
	}
}

// A word of four letters or more also finds the longer words that start
// with it (mongo, mongodb), below a note holding the word itself.
func TestPrefixMatchesRankBelowExact(t *testing.T) {
	docs := filler(10)
	docs["notes/mongodb.md"] = "# MongoDB\n\nThe mongodb server keeps the catalogue.\n"
	docs["notes/mongo-shell.md"] = "# Shell\n\nConnect with the mongo shell to the server.\n"
	got := ranked(t, docs, "mongo", "mong", "mon")
	if want := []string{"notes/mongo-shell.md", "notes/mongodb.md"}; strings.Join(got["mongo"], " ") != strings.Join(want, " ") {
		t.Errorf("mongo ranks %v, want %v", got["mongo"], want)
	}
	if len(got["mong"]) != 2 {
		t.Errorf("mong (four letters) ranks %v, want both mongo notes", got["mong"])
	}
	if len(got["mon"]) != 0 {
		t.Errorf("mon (three letters) ranks %v, want nothing", got["mon"])
	}
}

// A question word also finds the words of four letters or more it begins
// with, as documentation abbreviates them ("differences" -> "diff"), below
// a note holding the word itself; a shorter start ("dif") is no match.
func TestAbbreviationsMatchBelowExact(t *testing.T) {
	docs := filler(10)
	docs["pages/git-diff.md"] = "# git diff\n\n> Show changes to tracked files.\n\n- Show the diff of two branches:\n\n`git diff main feature`\n"
	docs["pages/cmp.md"] = "# cmp\n\n> Compare two files and report the first differences.\n"
	docs["pages/dif.md"] = "# dif\n\n> A dif tool.\n"
	q := "differences"
	if got, want := ranked(t, docs, q)[q], []string{"pages/cmp.md", "pages/git-diff.md"}; !slices.Equal(got, want) {
		t.Errorf("%q ranks %v, want %v", q, got, want)
	}
}

// Where a question's word is itself in the vault, a continuation nearly
// every note holds ("work" -> "workspace" in a vault about workspaces)
// does not make every note a hit; where the word is not, that
// continuation is how the notes are found.
func TestCommonContinuationsMatchOnlyAnAbsentWord(t *testing.T) {
	docs := map[string]string{}
	for i := range 12 {
		docs[fmt.Sprintf("notes/ws%02d.md", i)] = fmt.Sprintf("# ws%02d\n\nThis workspace holds mongodb dumps.\n", i)
	}
	docs["notes/hours.md"] = "# Hours\n\nWe work from nine to five.\n"
	got := ranked(t, docs, "work", "mongo")
	if want := []string{"notes/hours.md"}; strings.Join(got["work"], " ") != strings.Join(want, " ") {
		t.Errorf("work ranks %v, want only %v", got["work"], want)
	}
	if len(got["mongo"]) != 10 {
		t.Errorf("mongo ranks %v, want ten of the notes holding mongodb", got["mongo"])
	}
}

// The workspace's contract files (.vivary/context.md, AGENTS.md,
// STATE.md) answer questions about the workspace, not a question about
// the notes' subject that shares words with them.
func TestContractFilesAnswerOnlyWorkspaceQuestions(t *testing.T) {
	docs := filler(5)
	docs["notes/gates.md"] = "# Release\n\nShip on Fridays after the review.\n"
	subject := "ask a question and verify the result before I act"
	workspace := "how does this workspace route context"
	got := ranked(t, docs, subject, workspace)
	for _, p := range got[subject] {
		if p == ".vivary/context.md" || p == "AGENTS.md" || p == "STATE.md" {
			t.Errorf("%q ranks the contract file %s: %v", subject, p, got[subject])
		}
	}
	if len(got[workspace]) == 0 || got[workspace][0] != ".vivary/context.md" {
		t.Errorf("%q ranks %v, want .vivary/context.md first", workspace, got[workspace])
	}
}

// A word of the question that is rare in the vault but not its subject
// ("pieces", said once in a note about something else) does not outrank
// the note about the subject; nor does a long page that mentions the
// subject in passing outrank the page whose opening says it is about it.
func TestSubjectOutweighsRareWords(t *testing.T) {
	docs := filler(30)
	for i := range 8 {
		docs[fmt.Sprintf("pages/edit%d.md", i)] = fmt.Sprintf("# edit%d\n\n> Edit text.\n\n- Split the window: `edit%d -o`\n", i, i)
	}
	docs["pages/split.md"] = "# split\n\n> Split a file into parts.\n\n- Split a file, each part 10 lines: `split -l 10 file`\n- Split a file into 5 parts: `split -n 5 file`\n"
	docs["pages/jigsaw.md"] = "# jigsaw\n\n> Solve a puzzle: put the pieces together.\n"
	docs["pages/handbook.md"] = "# Handbook\n\nEverything about files.\n\n" + strings.Repeat("Copy, move, list and archive files; split nothing. ", 60)
	q := "split a large file into smaller pieces"
	if got := ranked(t, docs, q)[q]; len(got) == 0 || got[0] != "pages/split.md" {
		t.Errorf("%q ranks %v, want pages/split.md first", q, got)
	}
}

// A description holding only a question's common word ("print", which
// many pages here begin with) earns no description bonus: the page whose
// description holds the question's rarer word ranks above the page that
// begins "Print" and only mentions the rarer one.
func TestDescriptionBonusOnlyForTopicalWords(t *testing.T) {
	docs := filler(30)
	for i := range 8 {
		docs[fmt.Sprintf("pages/show%02d.md", i)] = fmt.Sprintf("# show%02d\n\n> Print the contents of files.\n\n`show%02d path/to/file`\n", i, i)
	}
	docs["pages/cal.md"] = "# cal\n\n> Display a calendar.\n\n- Display the current month:\n\n`cal`\n"
	docs["pages/lpr.md"] = "# lpr\n\n> Print files.\n\n- Print a file:\n\n`lpr path/to/file`\n\n- Print a file on the default printer, for example the shared team calendar:\n\n`lpr -# 2 path/to/calendar`\n"
	q := "print a calendar"
	if got := ranked(t, docs, q)[q]; len(got) == 0 || got[0] != "pages/cal.md" {
		t.Errorf("%q ranks %v, want pages/cal.md first", q, got)
	}
}

// A word in a section's heading counts for more than the same word in its
// prose: of two reference pages of one length that each say "rotate"
// twice, the one with a section headed by it ranks first. A #tag and a
// heading inside a code block are not headings.
func TestHeadingWordsOutweighProse(t *testing.T) {
	docs := filler(10)
	docs["pages/audit.md"] = "# Audit\n\nThe audit tool keeps the records of every run on this host.\n\nIt can rotate the records when they rotate daily.\n\n## Options\n\nSet the path.\n"
	docs["pages/journal.md"] = "# Journal\n\nThe journal tool keeps the records of every run on this host.\n\n## Rotate\n\nIt can rotate the records daily.\n\nSet the path.\n"
	docs["pages/hashtag.md"] = "# Hashtag\n\nThe hashtag tool keeps the records of every run on this host.\n\n#rotate\n\nIt can rotate the records daily.\n\nSet the path.\n"
	docs["pages/fenced.md"] = "# Fenced\n\nThe fenced tool keeps the records of every run on this host.\n\n```sh\n# rotate\n```\n\nIt can rotate the records daily.\n\nSet the path.\n"
	q := "rotate"
	got := ranked(t, docs, q)[q]
	if len(got) != 4 || got[0] != "pages/journal.md" {
		t.Errorf("%q ranks %v, want pages/journal.md first of four", q, got)
	}
}
