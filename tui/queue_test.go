package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/planctl/planctl/plan/runner"
)

const gatePlan = `[{"id": "a", "tool": "gate", "args": {}}, {"id": "b", "tool": "gate", "args": {}}, {"id": "c", "tool": "echo", "args": {}}, {"id": "d", "tool": "echo", "args": {}}]`

// Stepping keys typed while a step runs wait and run in order; the screen
// says which are waiting.
func TestQueuedKeysRunInOrder(t *testing.T) {
	cat, g := gateCatalog(t)
	tm := newTest(t, gatePlan, cat)
	done := tm.start("n")
	tm.press("nn") // as tmux send-keys delivers them: one read, two keys
	if len(tm.queue) != 2 {
		t.Fatalf("queue %v", tm.queue)
	}
	wantView(t, tm, "running a; queued: n n")
	tm.press("j", "k") // moving acts at once
	if tm.sel != 0 || len(tm.queue) != 2 {
		t.Fatalf("sel %d queue %d", tm.sel, len(tm.queue))
	}
	g.open <- true
	_, cmd := tm.Update(<-done) // a ends; the first queued n starts b
	if len(tm.queue) != 1 || !tm.busy || tm.run.Cursor() != 1 {
		t.Fatalf("after a: queue %d busy %v cursor %d", len(tm.queue), tm.busy, tm.run.Cursor())
	}
	go func() { g.open <- true }()
	tm.drain(cmd) // b, then the last queued n runs c
	if tm.busy || len(tm.queue) != 0 {
		t.Fatalf("busy %v queue %v", tm.busy, tm.queue)
	}
	for i, want := range []runner.StepStatus{runner.StepOK, runner.StepOK, runner.StepOK, runner.StepPending} {
		if got := tm.run.Step(i).Status; got != want {
			t.Fatalf("step %d: %s, want %s", i, got, want)
		}
	}
	wantView(t, tm, "status: paused · 3/4 ok", "c: ok in")
}

// x cancels the running step and drops the queue, and says so.
func TestCancelDropsTheQueue(t *testing.T) {
	cat, _ := gateCatalog(t)
	tm := newTest(t, gatePlan, cat)
	done := tm.start("n")
	tm.press("c", "ctrl+r", "R")
	wantView(t, tm, "queued: c ctrl+r R")
	tm.press("x")
	wantView(t, tm, "cancelling a… and dropped the queued keys c ctrl+r R")
	tm.drain(func() tea.Msg { return <-done })
	if tm.busy || len(tm.queue) != 0 || tm.run.Step(1).Status != runner.StepPending {
		t.Fatalf("busy %v queue %v step 1 %s", tm.busy, tm.queue, tm.run.Step(1).Status)
	}
}

// A failing step drops the queue: keys meant for a run that went well do
// not run on after a failure.
func TestFailureDropsTheQueue(t *testing.T) {
	cat, g := gateCatalog(t)
	tm := newTest(t, gatePlan, cat)
	done := tm.start("n")
	tm.press("n", "n")
	g.open <- false
	tm.drain(func() tea.Msg { return <-done })
	if tm.busy || len(tm.queue) != 0 {
		t.Fatalf("busy %v queue %v", tm.busy, tm.queue)
	}
	wantView(t, tm, "a failed: the gate said no (dropped the queued keys n n)")
}

// The queue is bounded, and a long one is shown cut.
func TestQueueIsBounded(t *testing.T) {
	cat, _ := gateCatalog(t)
	tm := newTest(t, gatePlan, cat)
	done := tm.start("n")
	tm.press(strings.Repeat("n", maxQueue+5))
	if len(tm.queue) != maxQueue {
		t.Fatalf("queue %d", len(tm.queue))
	}
	wantView(t, tm, "keys are already queued: this one is dropped")
	tm.status.msg = ""
	wantView(t, tm, "queued: n n n n n n +58 more")
	tm.press("x")
	tm.drain(func() tea.Msg { return <-done })
}

// b acts at once, even while c runs: the running continue stops at a
// breakpoint set after it started.
func TestBreakpointSetWhileContinuing(t *testing.T) {
	cat, g := gateCatalog(t)
	tm := newTest(t, gatePlan, cat)
	done := tm.start("c")
	tm.press("j", "j", "j", "b") // d
	if !tm.dbg.IsBreak(3) {
		t.Fatal("no breakpoint on d")
	}
	g.open <- true // a
	g.open <- true // b
	tm.drain(func() tea.Msg { return <-done })
	if tm.run.Cursor() != 3 || tm.run.Step(2).Status != runner.StepOK {
		t.Fatalf("stopped before %d", tm.run.Cursor())
	}
	wantView(t, tm, "stopped at the breakpoint on d")
}
