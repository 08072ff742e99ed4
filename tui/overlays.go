package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// The screens that replace the panes for a while: a whole value and the
// arguments editor (help is in help.go).

func (m *model) fullView() string {
	var b strings.Builder
	path := ""
	if !m.tree.empty() {
		path = m.cursorPath()
	}
	b.WriteString(ansi.Truncate(m.st.title.Render("Value of "+path)+m.st.dim.Render("  (j/k scroll · y copy · any other key closes)"), m.w, "…"))
	b.WriteByte('\n')
	rows := m.h - 1
	n := 0
	for i := m.fullTop; i < len(m.full) && n < rows; i++ {
		for _, l := range strings.Split(ansi.Hardwrap(sanitizeText(m.full[i]), m.w, false), "\n") {
			if n >= rows {
				break
			}
			b.WriteString(l)
			n++
			if n < rows {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// sanitizeText keeps tabs readable and drops other control characters.
func sanitizeText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return '�'
		}
		return r
	}, s)
}

func (m *model) editView() string {
	var b strings.Builder
	b.WriteString(ansi.Truncate(m.st.title.Render("Arguments of "+m.label(m.editAt)+" (JSON)")+m.st.dim.Render("  ctrl+s apply · esc cancel"), m.w, "…"))
	b.WriteByte('\n')
	b.WriteString(m.editor.View())
	b.WriteByte('\n')
	if m.edErr != "" {
		// below the editor are three rows: the whole error, wrapped
		lines := strings.Split(ansi.Wrap("✗ "+m.edErr, m.w, " "), "\n")
		for k, l := range lines[:min(len(lines), 3)] {
			if k > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(ansi.Truncate(m.st.errMsg.Render(l), m.w, "…"))
		}
	}
	return b.String()
}
