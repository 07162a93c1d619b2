package cli

import (
	"fmt"
	"io"

	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/produce"
)

// omissionHints say, for each omission row a producer can report, what was
// left out and what a person can do about it. A row without a hint is
// printed as it is.
var omissionHints = map[[2]string]string{
	{"privacy_excluded", "git_ignored"}:     "kept out by the workspace's ignore rules",
	{"privacy_excluded", "sensitive_name"}:  "secret-looking names are never read",
	{"filesystem", "sensitive_name"}:        "secret-looking folders are never read",
	{"document", "sensitive_name"}:          "secret-looking names are never read",
	{"filesystem", "link_or_reparse"}:       "links are never followed; replace a link with the real file or folder",
	{"filesystem", "unsafe_path"}:           "a name with a control or direction character, an invisible character outside a script that spells with it, or another unsafe form; rename it",
	{"filesystem", "directory_unavailable"}: "a folder could not be listed; check its permissions and run again",
	{"filesystem", "unreadable"}:            "a folder your user may not read or search, left out whole; give read and search permission to include it",
	{"filesystem", "entry_unavailable"}:     "an entry changed or vanished while it was listed; run again",
	{"document", "config_excluded"}:         "excluded by the workspace policy's exclude list",
	{"document", "hard_link_or_nonregular"}: "hard-linked or special files are never read; keep one plain copy",
	{"document", "sensitive_content"}:       "holds a credential or the workspace's absolute path; take it out of the text",
	{"document", "changed"}:                 "changed while it was read; run again",
	{"document", "unavailable"}:             "could not be read; check its permissions",
	{"document", "too_large"}:               fmt.Sprintf("over the %d MiB file limit; split it", limits.MaxFileBytes>>20),
	{"edge", "edge_limit_or_unsafe"}:        fmt.Sprintf("refs beyond %d in a document, or unsafe ref targets (each field has an E103)", limits.MaxEdgesPerDocument),
	{"config", "local_pack_excluded"}:       "named packs are not bundled; remove packs from the policy",
	{"config", "invalid"}:                   "tropo.toml is not a valid policy; fix it or remove it",
	{"config", "unavailable"}:               "tropo.toml could not be read; check its permissions",
	{"config", "sensitive_content"}:         "tropo.toml holds a credential or a machine path; take it out",
	{"config", "git_ignored"}:               "tropo.toml is ignored, so its rules were not used",
	{"selection", "path_not_found"}:         "a --path selected no document",
	{"result", "budget_limit"}:              "did not fit the --budget; raise it or ask a narrower question",
	{"snapshot", "omissions_truncated"}:     "more kinds of omission than are listed",
}

// hiddenHint is said once after the omission rows when some path was left
// out: where the owner finds which, and why.
const hiddenHint = "run `vivary check --show-hidden` to see each path left out and the rule that hid it"

// hidesPaths reports omission rows that stand for paths left out (not a
// --path that selected nothing, or a budget).
func hidesPaths(om []produce.Omission) bool {
	for _, o := range om {
		if o.Kind != "selection" && o.Kind != "result" && o.Kind != "edge" {
			return true
		}
	}
	return false
}

// printOmissions prints "(incomplete)" when the answer is not whole, then
// one line per omission row with its hint.
func printOmissions(w io.Writer, complete bool, om []produce.Omission) {
	if !complete {
		fmt.Fprintln(w, "(incomplete)")
	}
	printOmissionRows(w, om)
}

func printOmissionRows(w io.Writer, om []produce.Omission) {
	for _, o := range om {
		if hint, ok := omissionHints[[2]string{o.Kind, o.Reason}]; ok {
			fmt.Fprintf(w, "omitted: %s/%s %d (%s)\n", o.Kind, o.Reason, o.Count, hint)
		} else {
			fmt.Fprintf(w, "omitted: %s/%s %d\n", o.Kind, o.Reason, o.Count)
		}
	}
}
