package tui

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/runner"
)

// What the panes show about the plan as a whole (the validator's
// diagnostics, the data flow between steps, Concierge's verdict) takes a
// pass over every step, which takes long on a plan of many steps.
// The first screen needs none of it (a step row, the selected step's
// arguments), so the debugger draws first and computes them in a command
// (checkPlan); until they arrive the header says "checking", the step pane
// says what is still to come, and every key works. An edit starts a new
// check; an answer about a plan that is no longer the one shown is dropped.

// factsMsg delivers the facts of plan p.
type factsMsg struct {
	p     *plan.Plan
	stale bool // p was edited while it was checked
	diags []plan.Diagnostic
	flow  plan.Flow
	rej   *concierge.Rejection
}

// checkPlan computes the facts of the plan shown, in a command: the
// Debugger validates it unless it has (Debugger.Check), then the data flow
// and Concierge's own checks.
func (c *runState) checkPlan() tea.Cmd {
	c.checking = true
	dbg, p, cat := c.dbg, c.p, c.dbg.Catalog()
	return func() tea.Msg {
		cp, ds := dbg.Check()
		if cp != p {
			return factsMsg{p: p, stale: true}
		}
		msg := factsMsg{p: p, diags: ds, flow: plan.DataFlow(p)}
		if cat != nil {
			msg.rej, _ = runner.Admit(p, cat, false)
		}
		return msg
	}
}

// facts takes the facts of the plan shown; it reports whether they were
// about it.
func (c *runState) facts(msg factsMsg) bool {
	if msg.p != c.p || msg.stale {
		return false
	}
	c.setDiags(msg.diags)
	c.flow, c.rej, c.checking = msg.flow, msg.rej, false
	c.refreshResultDiags()
	return true
}

// setDiags files diagnostics by step, and those about the plan as a whole.
func (c *runState) setDiags(ds []plan.Diagnostic) {
	c.diags = make([][]plan.Diagnostic, len(c.p.Steps))
	c.pdiag, c.resultKeys = nil, nil
	for _, d := range ds {
		if d.StepIndex >= 0 && d.StepIndex < len(c.diags) {
			c.diags[d.StepIndex] = append(c.diags[d.StepIndex], d)
		} else {
			c.pdiag = append(c.pdiag, d)
		}
	}
}

// reads and readBy are the steps step i reads and is read by: none while
// the plan is being checked.
func (c *runState) reads(i int) []int {
	if i < 0 || i >= len(c.flow.Reads) {
		return nil
	}
	return c.flow.Reads[i]
}

func (c *runState) readBy(i int) []int {
	if i < 0 || i >= len(c.flow.ReadBy) {
		return nil
	}
	return c.flow.ReadBy[i]
}
