package adapter

import (
	"context"
	"time"

	"github.com/vivary-dev/vivary-go/internal/idle"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// startWarm reads the bound workspaces, one after the other, in the
// background while no call has come: one goroutine on one thread at the
// lowest priority (package idle), reading on that thread alone, writing
// nothing. The first call stops it and takes up what it read, as after a
// cut call; it never starts again. It ends with ctx too (the end of input,
// a signal).
func (s *Server) startWarm(ctx context.Context) {
	if !s.opts.Warm {
		return
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	s.warmMu.Lock()
	s.warmStop, s.warmDone = cancel, done
	s.warmMu.Unlock()
	go idle.Run(func() {
		defer close(done)
		for _, b := range s.order {
			if wctx.Err() != nil {
				return
			}
			// A refusal here is the first call's to report.
			_ = b.Reader.Warm(snapshot.WithWorkers(wctx, 1))
		}
	})
}

// stopWarm ends the background reading and waits for it, within the
// cancellation grace; it reports false when the reader is still running
// then (a call must not run beside it: one worker at a time).
func (s *Server) stopWarm() bool {
	s.warmMu.Lock()
	stop, done := s.warmStop, s.warmDone
	s.warmMu.Unlock()
	if stop == nil {
		return true
	}
	stop()
	t := time.NewTimer(s.opts.Grace)
	defer t.Stop()
	select {
	case <-done:
		s.warmMu.Lock()
		s.warmStop, s.warmDone = nil, nil
		s.warmMu.Unlock()
		return true
	case <-t.C:
		return false
	}
}
