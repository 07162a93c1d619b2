package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/vivary-dev/vivary-go/snapshot"
)

// How the progress line behaves: it shows once the work has run
// progressAfter, and is redrawn at most every progressEvery. Tests shorten
// neither; they run in fake time.
const (
	progressAfter = time.Second
	progressEvery = 200 * time.Millisecond
)

// counter is what the progress line shows: documents done of known so far.
type counter interface{ Counts() (done, total int64) }

// progress returns ctx carrying a meter that a progress line on stderr
// shows, when stderr is a terminal, and quiet, which stops the line and
// clears it (call it before printing anything; calling it again does
// nothing). When stderr is not a terminal nothing is ever printed, so
// scripts and --json see the same bytes as without it.
func (c *call) progress(ctx context.Context) (context.Context, func()) {
	f, ok := c.stderr.(*os.File)
	if !ok || !isTerminal(f) {
		return ctx, func() {}
	}
	m := &snapshot.Meter{}
	return snapshot.WithMeter(ctx, m), progressLine(f, c.prog, m)
}

// progressLine draws one self-overwriting line on w while the work runs:
// the notes read of those found so far, never a path or a name.
func progressLine(w io.Writer, prog string, m counter) (quiet func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		wait := time.NewTimer(progressAfter)
		defer wait.Stop()
		select {
		case <-quit:
			return
		case <-wait.C:
		}
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		shown := ""
		for {
			n, total := m.Counts()
			line := fmt.Sprintf("%s: finding notes (%s so far)", prog, thousands(total))
			if n > 0 {
				line = fmt.Sprintf("%s: read %s of %s notes", prog, thousands(n), thousands(total))
			}
			if line != shown {
				// \r returns to the line's start, \x1b[K clears what a
				// longer line before left.
				fmt.Fprintf(w, "\r%s\x1b[K", line)
				shown = line
			}
			select {
			case <-quit:
				fmt.Fprint(w, "\r\x1b[K")
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-done
		})
	}
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
