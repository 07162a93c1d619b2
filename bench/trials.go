package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// watched is one tools/call as a client that sent a progressToken saw it:
// its answer or refusal, its wall time, and the progress it was sent.
type watched struct {
	known       bool
	why         string
	wall        time.Duration
	notes       int     // progress notifications received
	last, total float64 // the last one's counts
}

// tryWatched runs one tool with a _meta.progressToken of its own and
// counts the progress notifications sent under it.
func (s *mcpSession) tryWatched(tool string, args map[string]any) (watched, error) {
	token := fmt.Sprintf("bench-%d", s.next+1)
	var w watched
	s.progress = func(raw json.RawMessage) {
		var p struct {
			Token    any     `json:"progressToken"`
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
		}
		if json.Unmarshal(raw, &p) == nil && p.Token == token {
			w.notes++
			w.last, w.total = p.Progress, p.Total
		}
	}
	defer func() { s.progress = nil }()
	t0 := time.Now()
	known, why, err := s.tryWith(tool, args, map[string]any{"progressToken": token})
	w.known, w.why, w.wall = known, why, time.Since(t0)
	return w, err
}

func (w watched) String() string {
	out := "answered"
	if !w.known {
		out = "refused: " + w.why
	}
	out += " after " + secs(w.wall)
	if w.notes == 0 {
		return out + "; no progress notification"
	}
	return out + fmt.Sprintf("; %d progress notifications, the last %.0f of %.0f", w.notes, w.last, w.total)
}

// asked is a client calling one question again after each refusal.
type asked struct {
	calls    int
	answered bool
	wall     time.Duration
	cpu      time.Duration // the server's, over these calls
	refusals []string
}

// askUntilAnswered calls vivary_query with question q until it is
// answered or maxCalls were made, printing each call; its wall and CPU
// count from t0 and cpu0.
func askUntilAnswered(s *mcpSession, q string, maxCalls int, t0 time.Time, cpu0 time.Duration) (asked, error) {
	var a asked
	for a.calls < maxCalls && !a.answered {
		a.calls++
		_, args := mcpArgs("query", q)
		w, err := s.tryWatched("vivary_query", args)
		if err != nil {
			return a, err
		}
		fmt.Printf("    call %d: %s\n", a.calls, w)
		a.answered = w.known
		if !w.known {
			a.refusals = append(a.refusals, w.why)
		}
		if w.why == "server_busy" {
			// A worker still runs: calling again at once would only
			// count refusals; a client waits a moment.
			time.Sleep(time.Second)
		}
	}
	a.wall, a.cpu = time.Since(t0), procCPU(s.cmd.Process.Pid)-cpu0
	return a, nil
}

func (a asked) String() string {
	if !a.answered {
		return fmt.Sprintf("no answer in %d calls (%s), %s, server CPU %s", a.calls, strings.Join(a.refusals, ", "), secs(a.wall), secs(a.cpu))
	}
	return fmt.Sprintf("answered on call %d after %s, server CPU %s", a.calls, secs(a.wall), secs(a.cpu))
}

// trial is one fresh vivary-mcp: the first question asked until answered
// (wall and CPU from the server's start), a second question its index
// does not cover likewise, and the server's peak RSS.
type trial struct {
	first, second asked
	peakMiB       int64
}

// summarizeTrials prints the worst of the trials: the criterion is that
// every one is answered within a few calls.
func summarizeTrials(ts []trial, rgCPU time.Duration) {
	if len(ts) < 2 {
		return
	}
	var firstCalls, secondCalls []string
	worst := trial{}
	allFirst, allSecond := true, true
	for _, t := range ts {
		firstCalls = append(firstCalls, fmt.Sprint(t.first.calls))
		secondCalls = append(secondCalls, fmt.Sprint(t.second.calls))
		allFirst = allFirst && t.first.answered
		allSecond = allSecond && t.second.answered
		worst.first.calls, worst.second.calls = max(worst.first.calls, t.first.calls), max(worst.second.calls, t.second.calls)
		worst.first.wall, worst.second.wall = max(worst.first.wall, t.first.wall), max(worst.second.wall, t.second.wall)
		worst.first.cpu, worst.second.cpu = max(worst.first.cpu, t.first.cpu), max(worst.second.cpu, t.second.cpu)
		worst.peakMiB = max(worst.peakMiB, t.peakMiB)
	}
	yes := map[bool]string{true: "all answered", false: "NOT ALL ANSWERED"}
	fmt.Printf("over %d trials: first question %s, calls %s (max %d), max %s, max server CPU %s (%s rg); second question %s, calls %s (max %d), max %s, max server CPU %s; max peak RSS %d MiB\n",
		len(ts), yes[allFirst], strings.Join(firstCalls, ", "), worst.first.calls, secs(worst.first.wall), secs(worst.first.cpu), ratio(worst.first.cpu, rgCPU),
		yes[allSecond], strings.Join(secondCalls, ", "), worst.second.calls, secs(worst.second.wall), secs(worst.second.cpu), worst.peakMiB)
}
