package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/tui/internal/show"
)

// stepsModel is the steps pane on the left: one row per step, the
// selection (common.sel) and the data-flow marks of the selected step.
type stepsModel struct {
	*common
	*runState
	focused  bool
	width    int
	height   int    // rows, with the title
	top      int    // first step on screen
	marks    []byte // data-flow marks for the selection (see flowMark)
	marksFor int
	picked   int // the step the last key moved the selection to; -1 none
}

func newStepsModel(c *common, rs *runState) *stepsModel {
	return &stepsModel{common: c, runState: rs, picked: -1}
}

// SetSize sizes the pane and keeps the selection on screen.
func (s *stepsModel) SetSize(w, h int) {
	s.width, s.height = w, h
	s.scroll()
}

// planChanged forgets what was built from the plan before an edit.
func (s *stepsModel) planChanged() { s.marks = nil }

// Update moves the selection: it sets picked to the step a key moves it
// to, for the root to select (-1: the key did not move it).
func (s *stepsModel) Update(msg tea.Msg) (component, tea.Cmd) {
	s.picked = -1
	k, ok := msg.(tea.KeyMsg)
	n := len(s.p.Steps)
	if !ok || n == 0 {
		return s, nil
	}
	sel := s.sel
	ks := s.keys
	switch {
	case key.Matches(k, ks.Down):
		sel++
	case key.Matches(k, ks.Up):
		sel--
	case key.Matches(k, ks.PageDown):
		sel += s.height - 1
	case key.Matches(k, ks.PageUp):
		sel -= s.height - 1
	case key.Matches(k, ks.Top):
		sel = 0
	case key.Matches(k, ks.Bottom):
		sel = n - 1
	default:
		return s, nil
	}
	if sel = min(max(sel, 0), n-1); sel != s.sel {
		s.picked = sel
	}
	return s, nil
}

// scroll keeps the selected step on screen and, when both fit, the step
// the run stops before (a breakpoint's row, the next step): after a
// continue the selection is the last step that ran, one row above it.
func (s *stepsModel) scroll() {
	h := max(s.height-1, 1)
	if s.sel < s.top {
		s.top = s.sel
	}
	if s.sel >= s.top+h {
		s.top = s.sel - h + 1
	}
	if c := s.run.Cursor(); c < len(s.p.Steps) && c >= s.top+h && c-s.sel < h {
		s.top = c - h + 1
	}
	s.top = max(s.top, 0)
}

// rows is the pane's rows: its title, then one row per step on screen.
func (s *stepsModel) rows() []string {
	w := s.width
	n := len(s.p.Steps)
	rows := []string{s.title(s.focused, fmt.Sprintf("Steps (%d)", n), w)}
	h := s.height - 1
	if n == 0 {
		return append(rows, s.st.dim.Render(" (none)"))
	}
	s.scroll() // the run moves the selection and its stop between layouts
	for i := s.top; i < n && len(rows) <= h; i++ {
		rows = append(rows, s.stepRow(i, w))
	}
	return rows
}

// stepRow: selection, status glyph, breakpoint, data-flow mark, id, tool,
// and at the end the diagnostic count or the running time.
func (s *stepsModel) stepRow(i, w int) string {
	st := s.st
	step := s.p.Steps[i]
	ss := s.run.Step(i)
	var b strings.Builder
	if i == s.sel {
		b.WriteString(">")
	} else {
		b.WriteString(" ")
	}
	var suffix string
	switch {
	case ss.Status == runner.StepOK:
		b.WriteString(st.ok.Render("✓"))
	case ss.Status == runner.StepError:
		b.WriteString(st.err.Render("✗"))
	case s.running(i, ss):
		b.WriteString(st.run.Render(spin(s.frame)))
		suffix = " " + show.Duration(time.Since(s.startedAt(ss)))
	case s.notReached(i):
		b.WriteString(st.dim.Render("-"))
	case i == s.run.Cursor():
		b.WriteString(st.run.Render("▶"))
	default:
		b.WriteString(st.dim.Render("·"))
	}
	if s.dbg.IsBreak(i) {
		b.WriteString(st.brk.Render("●"))
	} else {
		b.WriteString(" ")
	}
	switch s.flowMark(i) {
	case '<':
		b.WriteString(st.flow.Render("←"))
	case '>':
		b.WriteString(st.flow.Render("→"))
	default:
		b.WriteString(" ")
	}
	b.WriteString(" ")
	label := jsontext.EscapeText(step.Label())
	if i == s.sel {
		label = st.selected.Render(label)
	}
	b.WriteString(label)
	b.WriteString(" ")
	// The mark comes before the tool name so a narrow pane cuts the name,
	// not the mark; it is a character, not a colour (NO_COLOR).
	switch s.dbg.ToolHint(step.ToolName()) {
	case "destructive":
		b.WriteString(st.errMsg.Render("!") + " ")
	case "read-only":
		b.WriteString("ro ")
	}
	b.WriteString(st.dim.Render(jsontext.EscapeText(step.ToolName())))
	if len(s.diags[i]) > 0 {
		suffix += " " + severityMarks(st, s.diags[i])
	}
	sw := ansi.StringWidth(suffix)
	return pad(b.String(), w-sw) + suffix
}

// flowMark is '<' for a step the selected one reads from, '>' for one that
// reads it, else 0. The marks are indexed once per selection, so a step read
// by thousands costs nothing per row.
func (s *stepsModel) flowMark(i int) byte {
	if s.marks == nil || s.marksFor != s.sel {
		if s.marks == nil {
			s.marks = make([]byte, len(s.p.Steps))
		} else {
			clear(s.marks)
		}
		s.marksFor = s.sel
		for _, j := range s.reads(s.sel) {
			s.marks[j] = '<'
		}
		for _, j := range s.readBy(s.sel) {
			s.marks[j] = '>'
		}
	}
	return s.marks[i]
}

// severityMarks counts diagnostics by severity, worst first: "E1 W2 I1".
// The letter carries the severity, so it reads the same without colour.
func severityMarks(st *styles, ds []plan.Diagnostic) string {
	var n [3]int
	for _, d := range ds {
		if s := int(d.Severity); s >= 0 && s < len(n) {
			n[s]++
		}
	}
	var out []string
	for s, style := range []lipgloss.Style{st.err, st.warn, st.dim} {
		if n[s] > 0 {
			out = append(out, style.Render(severityLetter[s]+strconv.Itoa(n[s])))
		}
	}
	return strings.Join(out, " ")
}

var severityLetter = [3]string{"E", "W", "I"}
