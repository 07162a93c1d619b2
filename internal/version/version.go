// Package version names the build a binary came from, from the build
// information the Go toolchain embeds, so that a release never needs a
// hand-edited constant or a linker flag to say what it is.
package version

import (
	"regexp"
	"runtime/debug"
	"sync"
)

// String is the running binary's version: the module version when it was
// installed from a release (`go install …@v0.1.0` or a release archive
// built at the tag), else "(devel)" with the commit it was built from and
// "+dirty" when that checkout had uncommitted changes.
var String = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Devel
	}
	return Of(info)
})

// Devel is the version of a build that knows nothing of where it came from
// (go run, or a checkout built with -buildvcs=false).
const Devel = "(devel)"

// pseudo matches the tail the go command gives a version it derived from a
// commit rather than a tag (see `go help module-get`, "pseudo-versions").
var pseudo = regexp.MustCompile(`\d{14}-[0-9a-f]{12}$`)

// Of is the version recorded in info; doctor reads it from another binary's
// file, the binaries from themselves.
func Of(info *debug.BuildInfo) string {
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := info.Main.Version
	if rev == "" {
		// From the module proxy the version is the whole story; a build
		// with no version control stamp has nothing better to say.
		if v == "" {
			return Devel
		}
		return v
	}
	// Built in a checkout. At a clean release tag the go command stamps
	// the tag itself; anything else is a development build, and a
	// pseudo-version such as v0.1.1-0.2026… would read like a release
	// that never existed.
	if !dirty && v != "" && v != Devel && !pseudo.MatchString(v) {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	s := Devel + " " + rev
	if dirty {
		s += "+dirty"
	}
	return s
}
