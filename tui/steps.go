package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan"
)

// stepsView is the steps pane: one row per step on screen.
func (m *model) stepsView() []string {
	w := m.leftWidth()
	n := len(m.p.Steps)
	rows := []string{m.title(paneSteps, fmt.Sprintf("Steps (%d)", n), w)}
	h := m.bodyHeight() - 1
	if n == 0 {
		return append(rows, m.st.dim.Render(" (none)"))
	}
	for i := m.stepsTop; i < n && len(rows) <= h; i++ {
		rows = append(rows, m.stepRow(i, w))
	}
	return rows
}

// stepRow: selection, status glyph, breakpoint, data-flow mark, id, tool,
// and at the end the diagnostic count or the running time.
func (m *model) stepRow(i, w int) string {
	st := m.st
	s := m.p.Steps[i]
	ss := m.run.Step(i)
	var b strings.Builder
	if i == m.sel {
		b.WriteString(">")
	} else {
		b.WriteString(" ")
	}
	var suffix string
	switch {
	case ss.Status == plan.StepOK:
		b.WriteString(st.ok.Render("✓"))
	case ss.Status == plan.StepError:
		b.WriteString(st.err.Render("✗"))
	case m.running(i, ss):
		b.WriteString(st.run.Render(spin(m.frame)))
		suffix = " " + fmtDur(time.Since(m.startedAt(ss)))
	case m.notReached(i):
		b.WriteString(st.dim.Render("-"))
	case i == m.run.Cursor():
		b.WriteString(st.run.Render("▶"))
	default:
		b.WriteString(st.dim.Render("·"))
	}
	if m.dbg.IsBreak(i) {
		b.WriteString(st.brk.Render("●"))
	} else {
		b.WriteString(" ")
	}
	switch m.flowMark(i) {
	case '<':
		b.WriteString(st.flow.Render("←"))
	case '>':
		b.WriteString(st.flow.Render("→"))
	default:
		b.WriteString(" ")
	}
	b.WriteString(" ")
	label := s.Label()
	if i == m.sel {
		label = st.selected.Render(label)
	}
	b.WriteString(label)
	b.WriteString(" ")
	b.WriteString(st.dim.Render(s.ToolName()))
	if len(m.diags[i]) > 0 {
		suffix += " " + severityMarks(st, m.diags[i])
	}
	sw := ansi.StringWidth(suffix)
	return pad(b.String(), w-sw) + suffix
}

// flowMark is '<' for a step the selected one reads from, '>' for one that
// reads it, else 0. The marks are indexed once per selection, so a step read
// by thousands costs nothing per row.
func (m *model) flowMark(i int) byte {
	if m.marks == nil || m.marksFor != m.sel {
		if m.marks == nil {
			m.marks = make([]byte, len(m.p.Steps))
		} else {
			clear(m.marks)
		}
		m.marksFor = m.sel
		for _, j := range m.flow.Reads[m.sel] {
			m.marks[j] = '<'
		}
		for _, j := range m.flow.ReadBy[m.sel] {
			m.marks[j] = '>'
		}
	}
	return m.marks[i]
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
