package snapshot_test

import (
	"os"
	"path/filepath"
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
