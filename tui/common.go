package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan/query"
	"github.com/planctl/planctl/plan/runner"
)

// common is the environment every component shares, as soft-serve's
// common.Common: the screen's size, the styles and the keys. Components read
// it; only the root (model.go) changes it, on a resize.
type common struct {
	w, h int
	st   *styles
	keys keyMap
}

// The panes' widths: the steps on the left, the step pane and the result
// tree on the right.
func (c *common) leftWidth() int  { return min(max(c.w/3, 22), 48, c.w/2) }
func (c *common) rightWidth() int { return max(c.w-c.leftWidth()-1, 10) }

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
