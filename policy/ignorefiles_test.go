package policy

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/workspace"
)

// A .gitignore the walk met is refused as a link only when it is one (or
// a folder on its way is); one whose folder can no longer be searched (its
// permissions changed during the call) is refused as that, with what to
// do, not blamed on a link that is not there.
func TestIgnoreFileRefusalSaysWhy(t *testing.T) {
	for _, c := range []struct {
		info workspace.Info
		err  error
		want string
	}{
		{workspace.Info{}, workspace.ErrLink, "is a link"},
		{workspace.Info{}, fs.ErrPermission, "could not be searched"},
	} {
		ig := &ignorer{mode: ModeGit, lstat: func(string) (workspace.Info, error) { return c.info, c.err }}
		err := ig.addIgnoreFiles([]string{"notes/.gitignore"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %v: %v, want %q", c.info, c.err, err, c.want)
		}
	}
}
