package snapshot

import (
	"context"
	"sort"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/reason"
)

// Omission is one counted row of what a result left out.
type Omission = policy.Omission

// Hidden is one path a snapshot left out, with its rule: what `vivary
// check --show-hidden` shows the owner at the terminal. Only a snapshot
// taken with Options.ListHidden has them; nothing that answers an agent
// asks for them.
type Hidden struct {
	Path   string // workspace-relative; a folder's ends in "/"
	Kind   string // the omission row it is counted in
	Reason string
	// Detail says more where the rule has more to say: the character that
	// makes a name unsafe, the class of a credential (never its value).
	Detail string
	Line   int // the line of the text the detail is about, or 0
}

// collector counts omissions while a snapshot is taken, and lists the
// paths behind them when asked to.
type collector struct {
	rows     map[[2]string]int
	complete bool
	unstable bool // a read or listing failed: the snapshot must not be reused
	listing  bool
	hidden   []Hidden
}

func (c *collector) add(kind, why string, n int) {
	if n > 0 {
		c.rows[[2]string{kind, why}] += n
	}
}

// hide counts one path left out, and lists it when listing.
func (c *collector) hide(kind, why, rel, detail string) { c.hideAt(kind, why, rel, detail, 0) }

// hideAt is hide with the line its detail is about.
func (c *collector) hideAt(kind, why, rel, detail string, line int) {
	c.add(kind, why, 1)
	c.list(kind, why, rel, detail, line)
}

// list lists a path left out that is counted elsewhere.
func (c *collector) list(kind, why, rel, detail string, line int) {
	if c.listing {
		c.hidden = append(c.hidden, Hidden{Path: rel, Kind: kind, Reason: why, Detail: detail, Line: line})
	}
}

// Rows aggregates, orders and folds omission rows keyed by (kind, reason),
// so every result lists its omissions the same way.
func Rows(m map[[2]string]int) []Omission {
	out := make([]Omission, 0, len(m))
	for k, n := range m {
		out = append(out, Omission{Kind: k[0], Reason: k[1], Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return guard.Less(out[i].Kind, out[j].Kind)
		}
		return guard.Less(out[i].Reason, out[j].Reason)
	})
	if len(out) > limits.MaxOmissionRows {
		rest := 0
		for _, o := range out[limits.MaxOmissionRows-1:] {
			rest += o.Count
		}
		out = append(out[:limits.MaxOmissionRows-1], Omission{Kind: "snapshot", Reason: "omissions_truncated", Count: rest})
	}
	return out
}

func cancelled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return reason.Wrap(reason.ProducerUnavailable, "the call was cancelled", err)
	}
	return nil
}

// pollEvery is how many items a long loop of the cold path handles between
// looks at its context: at 50,000 notes on a saturated machine, a pass that
// looked only at its end could hold a cancelled call's slot past the grace.
const pollEvery = 1024

// poll is cancelled(ctx) at every pollEvery-th item i of a loop, nil
// between: a look costs a lock, an item of these loops far less.
func poll(ctx context.Context, i int) error {
	if i%pollEvery != 0 {
		return nil
	}
	return cancelled(ctx)
}

func workLimit(msg string) error { return reason.New(reason.WorkLimitExceeded, msg) }

func policyUnavailable(msg string) error { return reason.New(reason.PrivacyPolicyUnavailable, msg) }
