package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// The screens that replace the panes for a while: help, a whole value,
// and the arguments editor.

func (m *model) helpView() string {
	var lines []string
	for _, g := range m.keys.helpGroups() {
		lines = append(lines, m.st.title.Render(g.title))
		for _, k := range g.keys {
			h := k.Help()
			lines = append(lines, fmt.Sprintf("  %-12s %s", h.Key, h.Desc))
		}
	}
	lines = append(lines, m.st.title.Render("Copy (y, then)"),
		"  y value · p path",
		"  r output_by_reference object",
		m.st.title.Render("Marks"),
		"  ▶ next  ✓ ok  ✗ error  - not reached",
		"  ● breakpoint  !N diagnostics",
		"  ← the selected step reads it",
		"  → it reads the selected step")
	rows := m.h - 2
	cols := (len(lines) + rows - 1) / rows
	cw := m.w / max(cols, 1)
	var b strings.Builder
	b.WriteString(ansi.Truncate(m.st.title.Render("planctl debug: keys")+m.st.dim.Render("  (any key closes)"), m.w, "…") + "\n")
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			k := c*rows + r
			if k < len(lines) {
				if c < cols-1 {
					b.WriteString(pad(lines[k], cw))
				} else {
					b.WriteString(ansi.Truncate(lines[k], cw, "…"))
				}
			}
		}
		if r < rows-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

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
		b.WriteString(ansi.Truncate(m.st.errMsg.Render("✗ "+m.edErr), m.w, "…"))
	}
	return b.String()
}
