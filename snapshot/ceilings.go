package snapshot

import (
	"strconv"

	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
)

// ceiling holds the bounds one snapshot enforces: the limits package's
// constants, which tests lower to probe each at max and max+1 without
// writing a hundred thousand files.
type ceiling struct {
	entries, files int
	file, bytes    int64
}

var ceilings = ceiling{
	entries: limits.MaxScanEntries, files: limits.MaxMarkdownFiles,
	file: limits.MaxFileBytes, bytes: limits.MaxAggregateBytes,
}

// The refusals name the ceiling, what was found and what to do. They never
// name a path: only counts and the policy file a user edits.

func tooManyEntries(thin bool) error {
	return workLimit("the workspace has more than " + count(ceilings.entries) +
		" files and folders to scan, the most one call may scan; " + hint(thin))
}

func tooManyFiles(found int, thin bool) error {
	return workLimit("the workspace has " + count(found) + " Markdown files to read, more than the " +
		count(ceilings.files) + " one call may read; " + hint(thin))
}

func tooManyBytes(found int64, thin bool) error {
	return workLimit("the Markdown files to read hold " + size(found) + ", more than the " +
		size(ceilings.bytes) + " one call may read; " + hint(thin))
}

func policyFileTooLarge(found int64) error {
	return workLimit("a workspace policy file is " + size(found) + ", over the " + size(limits.MaxFileBytes) +
		" limit; shorten it")
}

// hint says where the user excludes folders: the thin policy file, or the
// root tropo.toml of a workspace without one.
func hint(thin bool) string {
	file := policy.OverlayPath
	if thin {
		file = policy.ThinConfigPath
	}
	return "exclude folders in " + file
}

// count writes n with thousands separators: 100,000.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// size writes a byte count in whole KiB or MiB, rounded up so a size just
// over a ceiling never prints as equal to it.
func size(n int64) string {
	const kib, mib = 1 << 10, 1 << 20
	switch {
	case n%mib == 0:
		return count(int(n/mib)) + " MiB"
	case n >= mib:
		tenths := (n*10 + mib - 1) / mib
		return count(int(tenths/10)) + "." + strconv.Itoa(int(tenths%10)) + " MiB"
	case n%kib == 0 || n >= kib:
		return count(int((n+kib-1)/kib)) + " KiB"
	}
	return count(int(n)) + " bytes"
}
