package tui

import (
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/runner"
)

// runState is the run as the root keeps it: the Debugger it was handed,
// the plan as edited, the facts about it, the selection and the command
// running. The root writes it (model.go and the files of its actions:
// stepping.go, queue.go, facts.go, nav.go, resultdiags.go); the components
// read it to draw, and ask the root for a change by the message or the
// report of their Update (shape_test.go checks that they write none of it).
type runState struct {
	o Options

	dbg   *runner.Debugger     // the run, the plan as edited, its diagnostics, the breakpoints
	run   *runner.Run          // dbg's run, to read
	orig  *plan.Plan           // dbg's plan as it was handed, before any edit
	p     *plan.Plan           // dbg's plan, as of the last edit (see refreshPlan)
	flow  plan.Flow            // of p
	diags [][]plan.Diagnostic  // of p, per step
	pdiag []plan.Diagnostic    // of p, about the plan as a whole
	rej   *concierge.Rejection // Concierge's verdict on p before the run

	resultKeys []treeKey // the result each step's RESULT_SCHEMA check saw (resultdiags.go)
	checking   bool      // flow, rej and (unless the Debugger had them) diags are being computed (facts.go)

	sel       int // the selected step
	busy      bool
	busyWhat  string
	busySince time.Time
	queue     []queued // stepping keys typed while a step runs (queue.go)
	frame     int      // the spinner's frame
	version   int      // bumped on every change of the run
	logsSeen  int      // the servers' log lines the log view has shown (ServerLogs.Count)
}

// refreshPlan takes the plan from the Debugger: after an edit, the edited
// plan, with its diagnostics when the Debugger has them (an edit is
// validated at once). The rest of its facts come from checkPlan (facts.go).
func (c *runState) refreshPlan() {
	c.p = c.dbg.Plan()
	c.flow, c.rej = plan.Flow{}, nil
	c.setDiags(nil)
	if c.dbg.Checked() {
		c.setDiags(c.dbg.Diagnostics())
	}
}

func (c *runState) label(i int) string { return c.p.Steps[i].Label() }

// busyLabel names what is running: the step a continue has reached, or a
// restart.
func (c *runState) busyLabel() string {
	if c.busyWhat != "restart" {
		if cur := c.run.Cursor(); cur < len(c.p.Steps) {
			return c.label(cur)
		}
	}
	return c.busyWhat
}

// running reports whether step i is running, or is about to in a command
// that has not called it yet.
func (c *runState) running(i int, ss runner.StepState) bool {
	return ss.Status == runner.StepRunning || c.busy && ss.Status == runner.StepPending && i == c.run.Cursor()
}

func (c *runState) startedAt(ss runner.StepState) time.Time {
	if ss.Started.IsZero() {
		return c.busySince
	}
	return ss.Started
}

// notReached: a step after the failed one, which the run will not reach.
func (c *runState) notReached(i int) bool {
	return c.run.Status() == runner.RunPartial && i > c.run.Cursor()
}
