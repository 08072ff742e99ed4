package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/runner"
)

// The progress of a 1,000-step run is one line rewritten in place: with a
// clock that moves 1 ms a step, it is drawn on the first step, then once
// every 100 ms, and on the last; it never holds a newline until the run
// ends, and then one.
func TestProgressLineInPlace(t *testing.T) {
	p := plan.Load("chain.json", plantest.Chain(1000), plan.Limits{})
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	l := &progressLine{w: &out, steps: p.Steps, now: func() time.Time { return clock }, width: 80}
	l.start = clock
	for i := range p.Steps {
		l.event(runner.Event{Kind: runner.EventStepStarted, Step: i})
		clock = clock.Add(time.Millisecond)
		l.event(runner.Event{Kind: runner.EventStepFinished, Step: i, State: runner.StepState{Status: runner.StepOK, Duration: time.Millisecond}})
	}
	if strings.Contains(out.String(), "\n") {
		t.Fatalf("the progress holds a newline before the run ends:\n%q", out.String())
	}
	draws := strings.Count(out.String(), "\r\x1b[K")
	if draws < 10 || draws > 12 { // at 1, 101, ..., 901 and 1000
		t.Errorf("drawn %d times for 1,000 steps over 1 s, want about 11:\n%q", draws, out.String())
	}
	if !strings.HasSuffix(out.String(), "\r\x1b[K[1000/1000] step-000999 (echo) ok in 1ms") {
		t.Errorf("the line does not end on the last step: %q", tail(out.String()))
	}
	l.finish()
	if !strings.HasSuffix(out.String(), "\r\x1b[K1000 of 1000 steps ran in 1s\n") {
		t.Errorf("finish: %q", tail(out.String()))
	}
}

// A failing step keeps its line (the next draw starts on a new line), and
// a line never exceeds the terminal's width, so it never wraps.
func TestProgressLineErrorAndWidth(t *testing.T) {
	p := plan.Load("chain.json", plantest.Chain(3), plan.Limits{})
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	l := &progressLine{w: &out, steps: p.Steps, now: func() time.Time { return clock }, width: 30, start: clock}
	l.event(runner.Event{Kind: runner.EventStepFinished, Step: 0, State: runner.StepState{Status: runner.StepOK}})
	l.event(runner.Event{Kind: runner.EventStepFinished, Step: 1, State: runner.StepState{Status: runner.StepError, Error: "disk full, and a long explanation"}})
	l.finish()
	if !strings.HasSuffix(out.String(), "2 of 3 steps ran in 0s, 1 fa…\n") { // cut at 29 columns
		t.Errorf("the summary does not count the failure: %q", out.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want the error's line and the summary, got %q", out.String())
	}
	for _, ln := range lines {
		for _, draw := range strings.Split(ln, "\r\x1b[K") {
			if n := len([]rune(draw)); n > 29 {
				t.Errorf("a line of %d columns on a 30-column terminal: %q", n, draw)
			}
		}
	}
	if !strings.Contains(lines[0], "[2/3] step-000001 (echo) err…") {
		t.Errorf("the error's line: %q", lines[0])
	}
}

func tail(s string) string {
	if len(s) > 200 {
		return "…" + s[len(s)-200:]
	}
	return s
}
