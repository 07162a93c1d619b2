// Package limits holds the core module's public ceilings. They are part of the
// contract, not tuning knobs: every one is tested at max and max+1.
package limits

const (
	// MaxScanEntries bounds the directory entries one snapshot may visit;
	// nothing under a pruned (excluded, ignored or secret-looking) folder
	// counts.
	MaxScanEntries = 1_000_000
	// MaxMarkdownFiles bounds the Markdown documents one snapshot may read,
	// counted after admission and exclusion.
	MaxMarkdownFiles = 100_000
	// MaxFileBytes bounds one document or config file. A document over it
	// is left out (document/too_large) unread; a policy file over it refuses.
	MaxFileBytes = 1 << 20
	// MaxAggregateBytes bounds the bytes one snapshot may read in all.
	MaxAggregateBytes = 512 << 20
	// MaxFindings bounds the findings one check may collect.
	MaxFindings = 200
	// MaxResults bounds query and find hits (the `limit` argument);
	// DefaultQueryResults and DefaultFindResults are its defaults.
	MaxResults          = 20
	DefaultQueryResults = 10
	DefaultFindResults  = 5
	// MaxQueryChars bounds a question or query text, in code points.
	MaxQueryChars = 4096
	// MaxFilters bounds each query filter list.
	MaxFilters = 16
	// MaxCheckPaths bounds the check `paths` list.
	MaxCheckPaths = 200
	// MaxPathChars bounds one workspace-relative path.
	MaxPathChars = 512
	// MaxTypeFilterChars bounds one type filter.
	MaxTypeFilterChars = 128
	// MaxEdgeFilterChars bounds one edge filter.
	MaxEdgeFilterChars = 256
	// MaxSnippetChars bounds query snippet_chars.
	MaxSnippetChars = 1000
	// DefaultSnippetChars is query's snippet default.
	DefaultSnippetChars = 160
	// FindSnippetChars is the snippet length find uses.
	FindSnippetChars = 320
	// MinFindBudget and MaxFindBudget bound the find token budget.
	MinFindBudget = 64
	MaxFindBudget = 4000
	// DefaultFindBudget is find's default budget.
	DefaultFindBudget = 1200
	// MaxOmissionRows bounds omission rows before they fold into one.
	MaxOmissionRows = 16
	// MaxEdgesPerDocument bounds the refs kept from one document.
	MaxEdgesPerDocument = 64
	// MaxTitleChars bounds a derived title.
	MaxTitleChars = 512
	// MaxClaims bounds capsule claims; DefaultClaims is the default.
	MaxClaims     = 24
	DefaultClaims = 24
	// MaxFieldChars and MaxRefTargetChars bound an edge's field and target.
	MaxFieldChars     = 128
	MaxRefTargetChars = 256
	// MaxGitOutputBytes and MaxGitStderrBytes bound what one git call may print.
	MaxGitOutputBytes = 4 << 20
	MaxGitStderrBytes = 8 << 10
	// MaxConfigExclude, MaxConfigTypes, MaxConfigFields, MaxTypeFolders and
	// MaxConfigDerive bound the shape of a workspace policy file.
	MaxConfigExclude = 128
	MaxConfigTypes   = 128
	MaxConfigFields  = 128
	MaxTypeFolders   = 16
	MaxConfigDerive  = 64
)

// MaxLosslessInt is the largest count a JSON number carries exactly (2^53-1,
// the last integer an IEEE double holds without rounding): a fact of the
// wire format, not a ceiling of the contract. A count above it is refused
// rather than silently rounded.
const MaxLosslessInt = 1<<53 - 1
