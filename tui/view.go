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

// msgRows is the rows of the message line: one while an overlay is open.
func (m *model) msgRows() int {
	if m.top() != nil {
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
	top := m.top()
	if top == m.full && m.full.title == "" {
		m.full.path = ""
		if !m.results.tree.empty() {
			m.full.path = m.cursorPath()
		}
	}
	line, onLines := top.(lineOverlay)
	if top != nil && !onLines {
		return top.View()
	}
	var b strings.Builder
	b.WriteString(m.status.View())
	b.WriteByte('\n')
	left := m.steps.rows()
	right := m.step.rows()
	if len(m.p.Steps) > 0 {
		right = append(right, m.results.rows()...)
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
	if onLines {
		var field string
		if field, question = line.lines(); field != "" {
			path = field
		}
	}
	b.WriteString(m.status.footer(path, question, m.msgRows()))
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
