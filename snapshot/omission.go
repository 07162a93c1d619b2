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

// collector counts omissions while a snapshot is taken.
type collector struct {
	rows     map[[2]string]int
	complete bool
	unstable bool // a read or listing failed: the snapshot must not be reused
}

func (c *collector) add(kind, why string, n int) {
	if n > 0 {
		c.rows[[2]string{kind, why}] += n
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

func workLimit(msg string) error { return reason.New(reason.WorkLimitExceeded, msg) }

func policyUnavailable(msg string) error { return reason.New(reason.PrivacyPolicyUnavailable, msg) }
