package tui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/query"
	"github.com/planctl/planctl/plan/runner"
)

// common is what every component shares, as soft-serve's common.Common: the
// screen's size, the styles and the keys, and the run they all draw. Only
// the root model (model.go) changes the run's part: the components read it.
type common struct {
	w, h int
	st   *styles
	keys keyMap
	o    Options

	dbg   *runner.Debugger     // the run, the plan as edited, its diagnostics, the breakpoints
	run   *runner.Run          // dbg's run, to read
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

	// notify puts a message on the status bar (the root's say), for the
	// components to report what a key did.
	notify func(isErr bool, format string, a ...any) tea.Cmd
}

// refreshPlan takes the plan from the Debugger: after an edit, the edited
// plan, with its diagnostics when the Debugger has them (an edit is
// validated at once). The rest of its facts come from checkPlan (facts.go).
func (c *common) refreshPlan() {
	c.p = c.dbg.Plan()
	c.flow, c.rej = plan.Flow{}, nil
	c.setDiags(nil)
	if c.dbg.Checked() {
		c.setDiags(c.dbg.Diagnostics())
	}
}

func (c *common) label(i int) string { return c.p.Steps[i].Label() }

// busyLabel names what is running: the step a continue has reached, or a
// restart.
func (c *common) busyLabel() string {
	if c.busyWhat != "restart" {
		if cur := c.run.Cursor(); cur < len(c.p.Steps) {
			return c.label(cur)
		}
	}
	return c.busyWhat
}

// The panes' widths: the steps on the left, the step pane and the result
// tree on the right.
func (c *common) leftWidth() int  { return min(max(c.w/3, 22), 48, c.w/2) }
func (c *common) rightWidth() int { return max(c.w-c.leftWidth()-1, 10) }

// sourceOf is the step a reference of step i reads: the last step before i
// with that id, or -1.
func (c *common) sourceOf(i int, id string) int {
	for j := i - 1; j >= 0; j-- {
		if s := c.p.Steps[j].ID; !s.IsZero() && s.Kind() == jsontext.String && s.Str() == id {
			return j
		}
	}
	return -1
}

// running reports whether step i is running, or is about to in a command
// that has not called it yet.
func (c *common) running(i int, ss runner.StepState) bool {
	return ss.Status == runner.StepRunning || c.busy && ss.Status == runner.StepPending && i == c.run.Cursor()
}

func (c *common) startedAt(ss runner.StepState) time.Time {
	if ss.Started.IsZero() {
		return c.busySince
	}
	return ss.Started
}

// notReached: a step after the failed one, which the run will not reach.
func (c *common) notReached(i int) bool {
	return c.run.Status() == runner.RunPartial && i > c.run.Cursor()
}

// title is a pane's title line; focused panes draw it bold, with ■.
func (c *common) title(focused bool, text string, w int) string {
	mark, line, style := "□ ", "─", c.st.paneTitle
	if focused {
		mark, line, style = "■ ", "━", c.st.paneFocus
	}
	s := mark + text + " "
	s = ansi.Truncate(s, w, "…")
	return style.Render(s + strings.Repeat(line, max(w-ansi.StringWidth(s), 0)))
}

// pad cuts or pads s to exactly w cells.
func pad(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func spin(f int) string { return spinFrames[f%len(spinFrames)] }

// ExplainQuery says that a query read a step that failed, with its error
// (query.ExplainFailed), where Eval can only say the query matched nothing:
// the results a query reads hold only the steps of run that ran ok. The
// REPL and the TUI explain their queries with it.
func ExplainQuery(run *runner.Run, err error) error {
	return query.ExplainFailed(err, func(id string) (string, bool) {
		for i := len(run.Plan.Steps) - 1; i >= 0; i-- {
			if run.Plan.Steps[i].Label() != id {
				continue
			}
			if st := run.Step(i); st.Status == runner.StepError {
				return st.Error, true
			}
		}
		return "", false
	})
}
