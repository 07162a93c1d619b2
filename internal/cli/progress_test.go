package cli

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

type fakeCounts struct{ done, total atomic.Int64 }

func (f *fakeCounts) Counts() (int64, int64) { return f.done.Load(), f.total.Load() }

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Work that ends within the first second draws nothing; longer work draws
// one line that overwrites itself as the counts move, and is cleared at
// the end. (Fake time: the durations are the published ones.)
func TestProgressLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w syncBuffer
		var c fakeCounts
		quiet := progressLine(&w, "vivary check", &c)
		time.Sleep(progressAfter - time.Millisecond)
		quiet()
		if w.String() != "" {
			t.Fatalf("work under a second drew %q", w.String())
		}

		quiet = progressLine(&w, "vivary check", &c)
		c.total.Store(12000)
		time.Sleep(progressAfter + time.Millisecond)
		c.total.Store(50003)
		c.done.Store(1234)
		time.Sleep(progressEvery)
		time.Sleep(progressEvery) // nothing moved: not drawn again
		c.done.Store(50003)
		time.Sleep(progressEvery)
		quiet()
		quiet()
		want := "\rvivary check: finding notes (12,000 so far)\x1b[K" +
			"\rvivary check: read 1,234 of 50,003 notes\x1b[K" +
			"\rvivary check: read 50,003 of 50,003 notes\x1b[K" +
			"\r\x1b[K"
		if got := w.String(); got != want {
			t.Errorf("drew %q\nwant %q", got, want)
		}
		if strings.Count(w.String(), "\n") != 0 {
			t.Error("the progress line ended a line")
		}
	})
}
