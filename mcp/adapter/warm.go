package adapter

import (
	"context"
	"time"

	"github.com/vivary-dev/vivary-go/internal/idle"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// What runs when: the session starts the background reading of every bound
// workspace (startWarm), which the first call stops and takes up, as after
// a cut call. Each call that leaves a workspace answering from an index
// focused on its questions (produce.Reader.Pending) starts the background
// work again rewarmAfter after it ends, unless another call came first
// (rewarm): the full index is built between calls, and a call stops it the
// same way. Never more than one background worker,
// and never beside a call: a call stops it before its producer runs.

// startWarm reads the bound workspaces, one after the other, in the
// background while no call has come: one goroutine on one thread at the
// lowest priority (package idle), reading on that thread alone, writing
// nothing. It ends with ctx too (the end of input, a signal), and so does
// any background work started after a call.
func (s *Server) startWarm(ctx context.Context) {
	if !s.opts.Warm {
		return
	}
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	s.warmCtx = ctx
	s.launchLocked(s.order, 0)
}

// pendingWarm is the bindings whose reader has background work left after
// a call.
func (s *Server) pendingWarm() []*Binding {
	if !s.opts.Warm {
		return nil
	}
	var out []*Binding
	for _, b := range s.order {
		if b.Reader.Pending() {
			out = append(out, b)
		}
	}
	return out
}

// rewarmAfter is how long the server waits after a call before it starts
// the background work again. A client calling again at once (an agent's
// next step, a retry after a refusal) never waits for a background worker
// to stop: at the lowest priority on a saturated machine, that took 0.6 s
// at 50,000 notes, and past the grace it is server_busy. Tests shorten it.
var rewarmAfter = 2 * time.Second

// rewarm starts the background work on bs again, rewarmAfter from now;
// the caller holds slotMu and has freed the slot, so the next call finds
// it to stop, started or not.
func (s *Server) rewarm(bs []*Binding) {
	if len(bs) == 0 {
		return
	}
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if s.warmCtx == nil || s.warmCtx.Err() != nil {
		return
	}
	if s.warmDone != nil {
		select {
		case <-s.warmDone:
		default:
			return // still running: one worker at a time
		}
	}
	s.launchLocked(bs, rewarmAfter)
}

// launchLocked runs Warm on bs, one after the other, on the idle thread,
// after delay unless stopped first; warmMu is held.
func (s *Server) launchLocked(bs []*Binding, delay time.Duration) {
	wctx, cancel := context.WithCancel(s.warmCtx)
	done := make(chan struct{})
	s.warmStop, s.warmDone = cancel, done
	run := func() {
		defer close(done)
		ctx := snapshot.WithWorkers(wctx, 1)
		if warmContext != nil {
			ctx = warmContext(ctx)
		}
		for _, b := range bs {
			if wctx.Err() != nil {
				return
			}
			// A refusal here is the next call's to report.
			_ = b.Reader.Warm(ctx)
		}
	}
	if delay <= 0 {
		go idle.Run(run)
		return
	}
	go func() {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
			idle.Run(run)
		case <-wctx.Done():
			close(done)
		}
	}()
}

// warmContext, when set, wraps the background work's context; only tests
// set it.
var warmContext func(context.Context) context.Context

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
		if s.warmDone == done {
			s.warmStop, s.warmDone = nil, nil
		}
		s.warmMu.Unlock()
		return true
	case <-t.C:
		return false
	}
}
