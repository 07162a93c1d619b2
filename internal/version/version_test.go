package version

import (
	"runtime/debug"
	"testing"
)

func TestOf(t *testing.T) {
	const rev = "7600d29f0c1e2d3b4a5968778695a4b3c2d1e0f9"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"installed from a release", "v0.1.0", nil, "v0.1.0"},
		{"installed from a branch", "v0.1.1-0.20261203063339-7600d29f0c1e", nil, "v0.1.1-0.20261203063339-7600d29f0c1e"},
		{"go run", "(devel)", nil, "(devel)"},
		{"no main module", "", nil, "(devel)"},
		{"checkout at a clean tag", "v0.2.0", vcs("false"), "v0.2.0"},
		{"checkout at a prerelease tag", "v0.2.0-rc.1", vcs("false"), "v0.2.0-rc.1"},
		{"checkout past a tag", "v0.2.1-0.20261203063339-7600d29f0c1e", vcs("false"), "(devel) 7600d29f0c1e"},
		{"checkout with no tag", "v0.0.0-20261203063339-7600d29f0c1e", vcs("false"), "(devel) 7600d29f0c1e"},
		{"dirty checkout", "v0.0.0-20261203063339-7600d29f0c1e+dirty", vcs("true"), "(devel) 7600d29f0c1e+dirty"},
		{"dirty checkout at a tag", "v0.2.0+dirty", vcs("true"), "(devel) 7600d29f0c1e+dirty"},
		{"checkout built by an old toolchain", "(devel)", vcs("false"), "(devel) 7600d29f0c1e"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/vivary-dev/vivary-go", Version: c.version}, Settings: c.settings}
		if got := Of(info); got != c.want {
			t.Errorf("%s: Of = %q, want %q", c.name, got, c.want)
		}
	}
}
