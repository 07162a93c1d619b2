//go:build vivarytest

package adapter

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// In binaries built with -tags vivarytest (tests only), the environment can
// shorten the timeout and grace and swap the producer, so timeout,
// cancellation and quarantine are testable in milliseconds. Release builds
// contain none of this.
func init() {
	testHooks = func(o *Options) {
		if d, err := time.ParseDuration(os.Getenv("VIVARY_MCP_TEST_TIMEOUT")); err == nil {
			o.Timeout = d
		}
		if d, err := time.ParseDuration(os.Getenv("VIVARY_MCP_TEST_GRACE")); err == nil {
			o.Grace = d
		}
		if os.Getenv("VIVARY_MCP_TEST_WARM") == "off" {
			o.Warm = false
		}
		mode, arg, _ := strings.Cut(os.Getenv("VIVARY_MCP_TEST_PRODUCER"), ":")
		d, _ := time.ParseDuration(arg)
		switch mode {
		case "stall": // the first call ignores cancellation for d; later calls are real
			var calls atomic.Int64
			o.Producer = func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
				if calls.Add(1) > 1 {
					return runProducer(ctx, tool, r, a)
				}
				time.Sleep(d)
				return nil, reason.New(reason.ProducerUnavailable, "stalled")
			}
		case "gate": // cooperative: marks itself running (arg.running), then waits for arg to exist
			o.Producer = func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
				if err := os.WriteFile(arg+".running", nil, 0o600); err != nil {
					return nil, err
				}
				for {
					if _, err := os.Stat(arg); err == nil {
						return runProducer(ctx, tool, r, a)
					}
					select {
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(5 * time.Millisecond):
					}
				}
			}
		case "hold": // real, then holds its answer until arg exists: cold work whose progress a client can watch
			o.Producer = func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
				v, err := runProducer(ctx, tool, r, a)
				for {
					if _, serr := os.Stat(arg); serr == nil {
						return v, err
					}
					select {
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(5 * time.Millisecond):
					}
				}
			}
		case "budget": // real, but each call reads at most N documents afresh, then waits for its timeout: a vault too big for one call
			n, _ := strconv.ParseInt(arg, 10, 64)
			o.Producer = func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
				inner, cancel := context.WithCancel(ctx)
				defer cancel()
				b := &budgetCtx{Context: inner, m: snapshot.MeterOf(ctx), n: n, cancel: cancel}
				v, err := runProducer(b, tool, r, a)
				if b.cut.Load() {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return v, err
			}
		case "big": // a result far over the response limit
			o.Producer = func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
				return map[string]any{"schema": "x", "blob": strings.Repeat("\"", 400_000), "complete": true}, nil
			}
		case "leak": // a result the firewall must refuse
			o.Producer = func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
				return map[string]any{"schema": "x", arg: "value", "complete": true}, nil
			}
		case "write": // tries to print on fd 1 while producing
			o.Producer = func(ctx context.Context, tool string, r *produce.Reader, a *args) (any, error) {
				os.Stdout.WriteString("STRAY OUTPUT\n")
				return runProducer(ctx, tool, r, a)
			}
		}
	}
}

// budgetCtx is cancelled by the first check of its Err once N documents
// were read afresh: the read path checks before every note, so the cut
// lands at the same place on a fast machine and a slow one (a watcher
// polling the meter lost the race to a fast read of the whole vault).
type budgetCtx struct {
	context.Context
	m      *snapshot.Meter
	n      int64
	cancel context.CancelFunc
	cut    atomic.Bool
}

func (c *budgetCtx) Err() error {
	if c.m.Read() >= c.n && !c.cut.Swap(true) {
		c.cancel()
	}
	return c.Context.Err()
}
