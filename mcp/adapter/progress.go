package adapter

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vivary-dev/vivary-go/snapshot"
)

// progressEvery is how often a call's progress is looked at: at most four
// notifications a second, and none for a call that answers sooner.
const progressEvery = 250 * time.Millisecond

// reportProgress sends notifications/progress for token while a call's
// producer runs: documents done (read now, or kept from an earlier call) of
// the documents known so far, only when more are done than it last said
// (the protocol wants progress to grow), and counts only, never a path or a
// name. stop ends it and waits, so nothing is sent after the answer.
func reportProgress(ctx context.Context, ss *mcp.ServerSession, token any, m *snapshot.Meter) (stop func()) {
	if token == nil || ss == nil {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		last := int64(-1)
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			n, total := m.Counts()
			if total == 0 || n <= last {
				continue
			}
			last = n
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Total: float64(total)})
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
