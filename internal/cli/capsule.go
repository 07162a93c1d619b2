package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/vivary-dev/vivary-go/capsule"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/produce"
)

func runCapsule(c *call) int {
	maxClaims := c.fs.Int("max-claims", limits.DefaultClaims, "")
	return runProducer(c, func(ctx context.Context, r *produce.Reader, text string) (any, func(io.Writer), error) {
		c, err := capsule.Compile(ctx, r, capsule.Args{Question: text, MaxClaims: *maxClaims})
		if err != nil {
			return nil, nil, err
		}
		return c, func(w io.Writer) {
			fmt.Fprintf(w, "capsule %s (%s)\n", c.CapsuleID, c.Fingerprint)
			fmt.Fprintf(w, "workspace %s\n", c.Workspace.Fingerprint)
			for _, cl := range c.Claims {
				fmt.Fprintf(w, "claim %s: %s\n", cl.Fact, cl.Claim)
			}
			for _, u := range c.Unknowns {
				fmt.Fprintf(w, "unknown %s: %s\n", u.Kind, u.Reason)
			}
			for _, rc := range c.RequiredChecks {
				fmt.Fprintf(w, "required check %s\n", rc.Name)
			}
			if !c.Complete {
				fmt.Fprintln(w, "(incomplete)")
			}
		}, nil
	})
}
