package produce

import (
	"context"
	"errors"
	"fmt"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
)

// Spelling is how a refusal names a list argument's item: as the MCP tools'
// JSON keys (the zero value: "paths[1]") or as the command line's flags
// ("--path 2 of 3", or "--path" when it was given once).
type Spelling int

const (
	JSONKeys Spelling = iota
	Flags
)

// flagOf is the command-line flag of each list argument.
var flagOf = map[string]string{"paths": "--path", "path_filters": "--path", "type_filters": "--type", "edge_filters": "--edge"}

// item names item i of the n values of the list argument arg.
func (s Spelling) item(arg string, i, n int) string {
	if s == Flags {
		if n == 1 {
			return flagOf[arg]
		}
		return fmt.Sprintf("%s %d of %d", flagOf[arg], i+1, n)
	}
	return fmt.Sprintf("%s[%d]", arg, i)
}

// list names the whole list argument.
func (s Spelling) list(arg string) string {
	if s == Flags {
		return flagOf[arg]
	}
	return arg
}

// pathRefused is path_refused for item i of arg, which broke rule. The
// path is the caller's own input and is named, quoted, when it is safe to
// show: printable, without a credential, a machine path or the workspace's
// own (root), and not secret-looking (which is called just that instead).
// Nothing in the message depends on what is on disk.
func (s Spelling) pathRefused(arg string, i int, paths []string, root, rule string) error {
	label := s.item(arg, i, len(paths))
	if p := paths[i]; guard.OutputSafe(p, limits.MaxPathChars) && !guard.ContainsRoot(p, root) && !policy.Sensitive(p) {
		label += fmt.Sprintf(" %q", p)
	}
	return reason.New(reason.PathRefused, label+" "+rule)
}

// textRule is the rule a path's text breaks (too long, or a character that
// cannot be shown), or "".
func textRule(p string, max int) string {
	switch {
	case guard.Len(p) > max:
		return fmt.Sprintf("is longer than %d characters", max)
	case !guard.SafeText(p, max):
		return "holds a control or invisible character; type the path plainly"
	}
	return ""
}

// The rules a path argument can break beyond its shape.
const (
	ruleSecret  = "is a secret-looking path; secret-looking names are never read, whether or not anything is there, so leave it out"
	ruleIgnored = "is kept out by the workspace's ignore rules (as a file or as a folder), whether or not anything is there; name only what the ignore rules admit"
)

// refuseIgnored refuses the first of paths (or globs, read literally) that
// the ignore rules keep out, naming it and the rule. The answer judges the
// name alone, so it never says whether anything is there.
func (r *Reader) refuseIgnored(ctx context.Context, s Spelling, arg string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	ignored, err := policy.IgnoredNames(ctx, r.ws, paths)
	if err != nil {
		// The policy's own refusal says why (not a workspace, a nested
		// .gitignore, a cancelled call); anything else fails closed.
		var re *reason.Error
		if errors.As(err, &re) {
			return err
		}
		return reason.Wrap(reason.PrivacyPolicyUnavailable, "the ignore policy could not be read", err)
	}
	for i, p := range paths {
		if ignored[p] {
			return s.pathRefused(arg, i, paths, r.ws.Root(), ruleIgnored)
		}
	}
	return nil
}
