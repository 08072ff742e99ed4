package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan/jsontext"
)

// The layout: a header, the steps pane on the left, the step pane over the
// result pane on the right, and at the bottom the path line and the
// message line.

func (m *model) bodyHeight() int { return max(m.h-2-m.msgRows()-m.watchRows(), 3) }

// watchRows is the watch line's: one while there are watches.
func (m *model) watchRows() int {
	if len(m.query.watches) > 0 {
		return 1
	}
	return 0
}

// msgRows is the rows of the message line: one while a question is asked.
func (m *model) msgRows() int {
	if m.mode != modeNormal {
		return 1
	}
	return m.status.rows()
}

// stepPaneHeight gives the step pane the rows its lines need, up to two
// fifths of the body, or all of it when there is no tree to show.
func (m *model) stepPaneHeight() int {
	n := len(m.step.lines) + 1
	limit := max(m.bodyHeight()*2/5, 4)
	if !m.results.hasTree() {
		limit = m.bodyHeight() - 2
	}
	return min(max(n, 3), limit)
}

// layout sizes the panes after any change.
func (m *model) layout() {
	m.laidFor = m.bodyHeight()
	m.ensurePane()
	m.sizeRight()
	m.steps.SetSize(m.leftWidth(), m.bodyHeight())
}

// ensurePane rebuilds the step pane's lines when they are stale, and
// sizes the panes under it to what is left.
func (m *model) ensurePane() {
	if m.step.ensure() {
		m.sizeRight()
	}
	m.step.SetSize(m.rightWidth(), m.stepPaneHeight())
}

func (m *model) sizeRight() {
	sh := m.stepPaneHeight()
	m.step.SetSize(m.rightWidth(), sh)
	m.results.SetSize(m.rightWidth(), m.bodyHeight()-sh)
}

// View draws the screen.
func (m *model) View() string {
	if m.bodyHeight() != m.laidFor {
		m.layout() // a message came or went, or a prompt opened
	}
	m.ensurePane()
	switch m.mode {
	case modeHelp:
		return m.help.View()
	case modeFull:
		m.full.path = ""
		if !m.results.tree.empty() {
			m.full.path = m.cursorPath()
		}
		return m.full.View()
	case modeEdit:
		return m.editor.View()
	}
	var b strings.Builder
	b.WriteString(m.status.header())
	b.WriteByte('\n')
	left := m.steps.View()
	right := m.step.View()
	if len(m.p.Steps) > 0 {
		right = append(right, m.results.View()...)
	}
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
	if w := m.query.watchView(); w != "" {
		b.WriteString(w)
		b.WriteByte('\n')
	}
	path, question := m.pathLine(), ""
	switch m.mode {
	case modeQuit:
		question = m.st.errMsg.Render(m.busyLabel() + " is running: quit anyway? y/n")
	case modeCopy:
		question = "copy: y value · p path · r output_by_reference object"
	case modeSearch, modeTrace, modeGoto:
		path, question = m.prompt.View(), m.prompt.hint()
	case modeQuery, modeBreakIf, modeWatch:
		path, question = m.query.View(), m.query.hint()
	}
	b.WriteString(m.status.View(path, question, m.msgRows()))
	return b.String()
}

// pathLine is the tree cursor's path in reference form, with search counts.
func (m *model) pathLine() string {
	t := m.results.tree
	if t.empty() {
		return ""
	}
	s := m.st.flow.Render(jsontext.EscapeText(m.cursorPath()))
	if q := t.search; q.query != "" {
		k := "-"
		if q.cur >= 0 {
			k = fmt.Sprint(q.cur + 1)
		}
		s += fmt.Sprintf("  /%s [%s/%d]", jsontext.EscapeText(q.query), k, len(q.matches))
	}
	return s
}
