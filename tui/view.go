package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan"
)

// The screen: a header with the run's status, the steps pane on the left,
// the step pane over the result tree on the right, and two lines at the
// bottom: the tree cursor's path (with search counts) and messages or hints.

func (m *model) leftWidth() int  { return min(max(m.w/3, 22), 48, m.w/2) }
func (m *model) rightWidth() int { return max(m.w-m.leftWidth()-1, 10) }
func (m *model) bodyHeight() int { return max(m.h-2-m.msgRows(), 3) }

// maxMsgRows bounds the rows a long message takes from the panes.
const maxMsgRows = 3

// msgRows is how many rows the message line takes: a long message (a
// Concierge error, a rerun that says where it starts) wraps rather than
// losing its end.
func (m *model) msgRows() int {
	if m.mode != modeNormal || m.msg == "" {
		return 1
	}
	n := strings.Count(m.wrapMsg(), "\n") + 1
	return min(n, maxMsgRows, max(m.h/4, 1))
}

func (m *model) wrapMsg() string {
	return ansi.Wrap("✗ "+m.msg, m.w, " ")
}

func (m *model) stepPaneHeight() int {
	n := len(m.paneLines) + 1
	limit := max(m.bodyHeight()*2/5, 4)
	if m.tree == nil && !m.loading {
		limit = m.bodyHeight() - 2
	}
	return min(max(n, 3), limit)
}

// layout rebuilds the step pane and sizes the tree after any change.
func (m *model) layout() {
	m.laidFor = m.bodyHeight()
	m.ensurePane()
	if m.tree != nil {
		m.tree.setSize(m.rightWidth(), m.bodyHeight()-m.stepPaneHeight()-1)
	}
	m.scrollSteps()
}

func (m *model) ensurePane() {
	frame := 0
	if m.busy {
		frame = m.frame
	}
	k := [3]int{m.sel, m.version*1000003 + frame, m.rightWidth()}
	if k == m.paneKey && m.paneLines != nil {
		return
	}
	if k[0] != m.paneKey[0] {
		m.refCur = -1 // another step: its references are others
	}
	m.paneKey = k
	m.paneLines = m.stepLines(m.rightWidth())
	if m.refCur >= len(m.paneRefs) {
		m.refCur = -1
	}
	if m.tree != nil {
		m.tree.setSize(m.rightWidth(), m.bodyHeight()-m.stepPaneHeight()-1)
	}
}

func (m *model) scrollSteps() {
	h := m.bodyHeight() - 1
	if m.sel < m.stepsTop {
		m.stepsTop = m.sel
	}
	if m.sel >= m.stepsTop+h {
		m.stepsTop = m.sel - h + 1
	}
	m.stepsTop = max(m.stepsTop, 0)
}

// View draws the screen.
func (m *model) View() string {
	if m.bodyHeight() != m.laidFor {
		m.layout() // a message came or went, or a prompt opened
	}
	m.ensurePane()
	switch m.mode {
	case modeHelp:
		return m.helpView()
	case modeFull:
		return m.fullView()
	case modeEdit:
		return m.editView()
	}
	var b strings.Builder
	b.WriteString(m.header())
	b.WriteByte('\n')
	left := m.stepsView()
	right := m.rightView()
	lw := m.leftWidth()
	sep := m.st.dim.Render("│")
	for r := 0; r < m.bodyHeight(); r++ {
		l := ""
		if r < len(left) {
			l = left[r]
		}
		b.WriteString(pad(l, lw))
		b.WriteString(sep)
		if r < len(right) {
			b.WriteString(ansi.Truncate(right[r], m.w-lw-1, "…"))
		}
		b.WriteByte('\n')
	}
	b.WriteString(ansi.Truncate(m.pathLine(), m.w, "…"))
	b.WriteByte('\n')
	rows := strings.Split(m.messageLine(), "\n")
	n := m.msgRows()
	if len(rows) > n {
		rows = rows[:n]
		rows[n-1] = strings.TrimRight(ansi.Truncate(rows[n-1], m.w-1, ""), " ") + "…"
	}
	for k, r := range rows {
		if k > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ansi.Truncate(r, m.w, "…"))
	}
	return b.String()
}

// pad cuts or pads s to exactly w cells.
func pad(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

func (m *model) title(p pane, text string, w int) string {
	mark, line, style := "□ ", "─", m.st.paneTitle
	if m.focus == p {
		mark, line, style = "■ ", "━", m.st.paneFocus
	}
	s := mark + text + " "
	s = ansi.Truncate(s, w, "…")
	return style.Render(s + strings.Repeat(line, max(w-ansi.StringWidth(s), 0)))
}

func (m *model) header() string {
	left := m.st.title.Render("planctl debug") + " " + m.p.Src.Name
	if c := m.dbg.Catalog(); c != nil && c.Source != "" {
		left += m.st.dim.Render(" · " + c.Source)
	}
	right := m.runStatus()
	room := m.w - ansi.StringWidth(right) - 1
	if room < 10 {
		return ansi.Truncate(right, m.w, "…")
	}
	return pad(left, room) + " " + right
}

// runStatus is the run's state in words, always on screen.
func (m *model) runStatus() string {
	st := m.st
	n := len(m.p.Steps)
	if n == 0 {
		return st.err.Render("✗ no steps")
	}
	ok := m.okCount()
	var s string
	switch {
	case m.busy:
		s = st.run.Render(spin(m.frame)+" running") + " " + m.busyLabel()
		if len(m.queue) > 0 {
			s += "; queued: " + m.queueText(6)
		}
	case m.run.Status() == plan.RunCompleted:
		s = st.ok.Render("✓ completed")
	case m.run.Status() == plan.RunPartial:
		s = st.err.Render("✗ partial") + ": " + m.label(m.run.Cursor()) + " failed"
	case m.run.Cursor() == 0:
		s = "ready"
	default:
		s = "paused"
	}
	if m.rej != nil {
		s = st.err.Render("✗ rejected") + " · " + s
	}
	return st.status.Render("status: ") + s + fmt.Sprintf(" · %d/%d ok", ok, n)
}

// okCount counts the steps that ran ok, once per change of the run.
func (m *model) okCount() int {
	k := [2]int{m.version, m.frame}
	if k == m.okKey && m.okN >= 0 {
		return m.okN
	}
	m.okKey, m.okN = k, 0
	for i := range m.p.Steps {
		if m.run.Step(i).Status == plan.StepOK {
			m.okN++
		}
	}
	return m.okN
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func spin(f int) string { return spinFrames[f%len(spinFrames)] }

// rightView is the step pane over the result tree.
func (m *model) rightView() []string {
	w := m.rightWidth()
	var rows []string
	if len(m.p.Steps) == 0 {
		rows = append(rows, m.title(paneStep, "Plan", w))
	} else {
		rows = append(rows, m.title(paneStep, "Step "+m.label(m.sel), w))
	}
	sh := m.stepPaneHeight()
	top := min(m.paneTop, max(len(m.paneLines)-1, 0))
	for r := 0; r < sh-1; r++ {
		if top+r < len(m.paneLines) {
			l := m.paneLines[top+r]
			if m.focus == paneStep && m.refCur >= 0 && m.paneRefs[m.refCur].line == top+r {
				l = ">" + strings.TrimPrefix(l, " ")
			}
			rows = append(rows, ansi.Truncate(l, w, "…"))
		} else {
			rows = append(rows, "")
		}
	}
	if len(m.paneLines) > top+sh-1 && len(rows) > 1 {
		rows[len(rows)-1] = m.st.dim.Render(fmt.Sprintf("  ↓ %d more lines (tab, then j)", len(m.paneLines)-top-sh+1))
	}
	if len(m.p.Steps) == 0 {
		return rows
	}
	if m.whole {
		rows = append(rows, m.title(paneTree, "Response (the whole run; v: the step's result)", w))
		switch {
		case m.tree != nil:
			rows = append(rows, m.tree.view(m.st)...)
		case m.treeErr != "":
			rows = append(rows, m.st.err.Render("  ✗ "+m.treeErr))
		default:
			rows = append(rows, m.st.dim.Render("  reading the response…"))
		}
		return rows
	}
	if m.argsView {
		rows = append(rows, m.title(paneTree, "Arguments "+m.label(m.sel)+" sends, resolved (a: its result)", w))
		switch {
		case m.tree != nil:
			rows = append(rows, m.tree.view(m.st)...)
		case m.treeErr != "":
			for _, l := range strings.Split(ansi.Wrap("✗ "+m.treeErr, max(w-4, 10), " "), "\n") {
				rows = append(rows, m.st.err.Render("  "+l))
			}
		default:
			rows = append(rows, m.st.dim.Render("  resolving…"))
		}
		return rows
	}
	rows = append(rows, m.title(paneTree, "Result "+m.label(m.sel), w))
	st := m.run.Step(m.sel)
	switch {
	case m.tree != nil:
		rows = append(rows, m.tree.view(m.st)...)
	case m.loading:
		rows = append(rows, m.st.dim.Render("  reading the result…"))
	case m.treeErr != "":
		rows = append(rows, m.st.err.Render("  ✗ "+m.treeErr))
	case st.Status == plan.StepError:
		rows = append(rows, m.st.dim.Render("  no result: the step failed (its error is above)"))
	case m.running(m.sel, st):
		rows = append(rows, m.st.dim.Render("  running…  x cancels"))
	default:
		rows = append(rows, m.st.dim.Render("  not run yet: n runs the next step, c continues"))
	}
	return rows
}

// pathLine is the tree cursor's path in reference form, with search counts.
func (m *model) pathLine() string {
	if m.mode == modeSearch || m.mode == modeTrace || m.mode == modeGoto {
		return m.input.View()
	}
	if m.tree.empty() {
		return ""
	}
	s := m.st.flow.Render(m.cursorPath())
	if q := m.tree.search; q.query != "" {
		k := "-"
		if q.cur >= 0 {
			k = strconv.Itoa(q.cur + 1)
		}
		s += fmt.Sprintf("  /%s [%s/%d]", q.query, k, len(q.matches))
	}
	return s
}

// messageLine is the last message, a question, or the main keys.
func (m *model) messageLine() string {
	switch m.mode {
	case modeQuit:
		return m.st.errMsg.Render(m.busyLabel() + " is running: quit anyway? y/n")
	case modeCopy:
		return "copy: y value · p path · r output_by_reference object"
	case modeSearch:
		return m.st.hint.Render("enter search · esc cancel · lower case matches any case")
	case modeTrace:
		return m.st.hint.Render("enter write · esc cancel")
	case modeGoto:
		return m.st.hint.Render(m.gotoHint())
	}
	if m.msg != "" {
		style, text := m.st.msg, ansi.Wrap(m.msg, m.w, " ")
		if m.msgErr {
			style, text = m.st.errMsg, m.wrapMsg()
		}
		lines := strings.Split(text, "\n")
		for k, l := range lines {
			lines[k] = style.Render(l)
		}
		return strings.Join(lines, "\n")
	}
	return m.st.hint.Render("n next · c continue · b break · tab pane · / search · y copy · ? help · q quit")
}
