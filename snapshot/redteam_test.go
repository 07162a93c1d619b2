package snapshot_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// The walk hands every ignore file to the policy whatever the case of its
// name (Git reads .GITIGNORE on a case-insensitive file system), and never
// enters a nested repository, whose own ignore rules it cannot read.
func TestWalkSeesCaseVariantIgnoreFilesAndNestedRepositories(t *testing.T) {
	root := testws.Thin(t, map[string]string{"notes/diary.md": "# D\n", "notes/.GITIGNORE": "diary.md\n"})
	_, err := snapshot.Take(bg, testws.Bind(t, root), snapshot.Options{})
	if reason.Of(err) != reason.PrivacyPolicyUnavailable {
		t.Fatalf("case-variant ignore file: %v", err)
	}
	root = testws.Thin(t, map[string]string{"inner/diary.md": "# D\n", "kept.md": "# K\n"})
	os.MkdirAll(filepath.Join(root, "inner/.git/info"), 0o755)
	snap, err := snapshot.Take(bg, testws.Bind(t, root), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range snap.Docs {
		if d.Path == "inner/diary.md" {
			t.Fatalf("a nested repository's file was served")
		}
	}
}

// A path the output screen would read as a machine path costs its own
// notes, never the answer; a folder name that merely ends in a mark is an
// ordinary path and is served.
func TestMachinePathShapedPathsAreLeftOut(t *testing.T) {
	root := testws.Thin(t, map[string]string{"notes:/odd.md": "# O\n", "Archive (2023)/kept.md": "# K\n", "C++/kept.md": "# C\n"})
	snap, err := snapshot.Take(bg, testws.Bind(t, root), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range snap.Docs {
		got = append(got, d.Path)
	}
	if s := fmt.Sprint(got); strings.Contains(s, "odd") || !strings.Contains(s, "Archive (2023)/kept.md") || !strings.Contains(s, "C++/kept.md") {
		t.Fatalf("served %s", s)
	}
}
