// Command release prepares a release of both modules and what is built
// from them. Run it from the repository root:
//
//	go run ./internal/release tag vX.Y.Z        # the two tags, in order
//	go run ./internal/release publish DIR vX.Y.Z # the tree into a file module proxy
//	go run ./internal/release npm DIST OUT vX.Y.Z # npm packages from GoReleaser's dist
//
// tag refuses a dirty tree and never pushes; it prints what to push.
package main

import (
	"fmt"
	"os"
	"regexp"
	"time"
)

const usage = `usage:
  go run ./internal/release tag VERSION
  go run ./internal/release publish PROXYDIR VERSION
  go run ./internal/release npm DISTDIR OUTDIR VERSION
VERSION is vMAJOR.MINOR.PATCH, optionally with a -prerelease suffix.
`

// semver is the release versions this accepts: the go command's canonical
// form, no build metadata (a module version cannot carry it).
var semver = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "release: %s\n", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("no command")
	}
	version := args[len(args)-1]
	if !semver.MatchString(version) {
		return fmt.Errorf("%q is not a release version such as v0.1.0", version)
	}
	switch {
	case args[0] == "tag" && len(args) == 2:
		return Tag(".", version, os.Stdout)
	case args[0] == "publish" && len(args) == 3:
		return PublishTree(".", args[1], version, time.Now())
	case args[0] == "npm" && len(args) == 4:
		return NPM(".", args[1], args[2], version, true)
	}
	fmt.Fprint(os.Stderr, usage)
	return fmt.Errorf("bad command line")
}
