package snapshot

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
)

var bg = context.Background()

// lower sets the ceilings for one test and puts them back after it.
func lower(t *testing.T, c ceiling) {
	saved := ceilings
	ceilings = c
	t.Cleanup(func() { ceilings = saved })
}

func refusal(t *testing.T, err error) string {
	t.Helper()
	var re *reason.Error
	if err == nil || reason.Of(err) != reason.WorkLimitExceeded || !asReason(err, &re) {
		t.Fatalf("got %v, want %s", err, reason.WorkLimitExceeded)
	}
	return re.Msg
}

func asReason(err error, re **reason.Error) bool {
	e, ok := err.(*reason.Error)
	*re = e
	return ok
}

// omitted is the count of one omission row.
func omitted(s *Snapshot, kind, why string) int {
	for _, o := range s.Omissions {
		if o.Kind == kind && o.Reason == why {
			return o.Count
		}
	}
	return 0
}

// Each ceiling holds at max and refuses at max+1, and the refusal names
// the ceiling, what was found and where to exclude folders.
func TestCeilingsAtMaxAndOver(t *testing.T) {
	root := testws.Thin(t, map[string]string{
		"notes/a.md": "# A\n\nalpha\n",
		"notes/b.md": "# B\n\nbeta\n",
	})
	ws := testws.Bind(t, root)
	base, err := Take(bg, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rules, err := policy.NewSession(bg, ws)
	if err != nil {
		t.Fatal(err)
	}
	en, err := enumerate(bg, ws, nil, rules, base.Config.Exclude, true, &collector{rows: map[[2]string]int{}})
	if err != nil {
		t.Fatal(err)
	}
	var read int64
	for _, d := range base.Docs {
		read += d.Stamp.Size
	}
	for _, c := range base.configFiles {
		read += int64(len(c.data))
	}
	files := len(base.Docs)
	wide := ceiling{entries: 1 << 30, files: 1 << 30, file: 1 << 20, bytes: 1 << 40}
	cases := []struct {
		name string
		max  ceiling
		want string // the refusal at max+1
	}{
		{"entries", ceiling{entries: en.scanned, files: wide.files, file: wide.file, bytes: wide.bytes},
			"the workspace has more than " + count(en.scanned-1) + " files and folders to scan, the most one call may scan; exclude folders in .vivary/workspace.toml"},
		{"files", ceiling{entries: wide.entries, files: files, file: wide.file, bytes: wide.bytes},
			"the workspace has " + count(files) + " Markdown files to read, more than the " + count(files-1) + " one call may read; exclude folders in .vivary/workspace.toml"},
		{"bytes", ceiling{entries: wide.entries, files: wide.files, file: wide.file, bytes: read},
			"the Markdown files to read hold " + size(read) + ", more than the " + size(read-1) + " one call may read; exclude folders in .vivary/workspace.toml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lower(t, c.max)
			if _, err := Take(bg, ws, Options{}); err != nil {
				t.Fatalf("at the ceiling: %v", err)
			}
			over := c.max
			switch c.name {
			case "entries":
				over.entries--
			case "files":
				over.files--
			case "bytes":
				over.bytes--
			}
			ceilings = over
			_, err := Take(bg, ws, Options{})
			if got := refusal(t, err); got != c.want {
				t.Errorf("refusal says %q, want %q", got, c.want)
			}
		})
	}
}

// A document over the per-file limit costs one document: it is left out
// unread (its credential is never seen, its bytes count towards nothing),
// the snapshot says it is incomplete, and every other document is served.
// A Markdown file that Git-style rules, the type policy or a secret-looking
// name keep out is counted as that, never as too large.
func TestTooLargeIsOneOmission(t *testing.T) {
	big := strings.Repeat("x", 9000) + "\npassword = hunter2hunter2\n"
	root := testws.Thin(t, map[string]string{
		"notes/a.md":             "# A\n\nalpha\n",
		"notes/big.md":           "# Big\n\n" + big,
		"notes/at-limit.md":      strings.Repeat("y", 100),
		".vivary/runtime/big.md": big,
		"archive/big.md":         big,
		"notes/password-big.md":  big,
	})
	testws.Write(t, root, ".vivary/workspace.toml", strings.Replace(readFile(t, root, ".vivary/workspace.toml"),
		`exclude = [`, `exclude = ["archive", `, 1))
	lower(t, ceiling{entries: 1 << 30, files: 1 << 30, file: 8192, bytes: 1 << 40})
	snap, err := Take(bg, testws.Bind(t, root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Complete {
		t.Error("a snapshot that left a document out says it is complete")
	}
	if n := omitted(snap, "document", "too_large"); n != 1 {
		t.Errorf("too_large counted %d times, want 1: %+v", n, snap.Omissions)
	}
	if omitted(snap, "document", "sensitive_content") != 0 {
		t.Error("the too-large document was read and screened")
	}
	if omitted(snap, "document", "config_excluded") != 1 || omitted(snap, "document", "sensitive_name") != 1 {
		t.Errorf("excluded and secret-looking files not counted as such: %+v", snap.Omissions)
	}
	served := map[string]bool{}
	for _, d := range snap.Docs {
		served[d.Path] = true
	}
	if !served["notes/a.md"] || !served["notes/at-limit.md"] || served["notes/big.md"] {
		t.Errorf("served %v", served)
	}
}

func readFile(t *testing.T, root, rel string) string {
	t.Helper()
	ws := testws.Bind(t, root)
	data, _, err := ws.ReadFile(rel, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestSizeAndCountWording(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 100000: "100,000", 1000000: "1,000,000"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{
		512 << 20: "512 MiB", 512<<20 + 1: "512.1 MiB", 1 << 20: "1 MiB", 1<<20 + 1: "1.1 MiB",
		3 << 19: "1.5 MiB", 3<<19 + 1: "1.6 MiB", 100: "100 bytes", 1 << 10: "1 KiB", 1<<10 + 1: "2 KiB",
	} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}

// Folders of one level are listed on every core, and listing stops once
// the level has met more entries than the scan ceiling: a folder left
// unlisted then is never taken for an empty one. Whatever the ceiling,
// the walk either refuses or has met every entry, as one lister would.
func TestWideLevelPastTheScanCeiling(t *testing.T) {
	notes := map[string]string{}
	for i := range 120 {
		for j := range 3 {
			notes[fmt.Sprintf("f%03d/n%d.md", i, j)] = "# N\n"
		}
	}
	root := testws.Thin(t, notes)
	ws := testws.Bind(t, root)
	base, err := Take(bg, ws, Options{})
	if err != nil || len(base.Docs) < 360 {
		t.Fatalf("%v, %d documents", err, len(base.Docs))
	}
	for _, max := range []int{1, 7, 50, 200, 400, 470} {
		lower(t, ceiling{entries: max, files: 1 << 30, file: 1 << 20, bytes: 1 << 40})
		snap, err := Take(bg, ws, Options{})
		if err == nil {
			if len(snap.Docs) != len(base.Docs) {
				t.Errorf("ceiling %d: %d documents served, want %d", max, len(snap.Docs), len(base.Docs))
			}
			continue
		}
		if got := refusal(t, err); !strings.Contains(got, "more than "+count(max)+" files and folders to scan") {
			t.Errorf("ceiling %d: refusal %q", max, got)
		}
	}
}
