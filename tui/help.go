package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// The ? screen. Its lines come from the key map, in sections, and flow
// down as many columns as fit the width; when they do not all fit the
// height, the flow scrolls by line (j/k) or by screen (pgdn/pgup), so the
// help reads the same on an 80x15 terminal as on a large one.

// helpModel is the ? screen, over the whole screen.
type helpModel struct {
	*common
	top    int // first help line on screen
	groups []helpGroup
	closed func(tea.KeyMsg) tea.Cmd // the root's, on the key that closed it
}

func newHelpModel(c *common) *helpModel { return &helpModel{common: c} }

// Init: nothing to start.
func (m *helpModel) Init() tea.Cmd { return nil }

// SetSize: the screen is the whole terminal (common.w, common.h).
func (m *helpModel) SetSize(int, int) {}

// ShortHelp: the keys that scroll it.
func (m *helpModel) ShortHelp() []key.Binding {
	return []key.Binding{m.keys.Down, m.keys.Up, m.keys.PageDown, m.keys.PageUp, m.keys.Top, m.keys.Bottom}
}

// open shows the groups of keys from the top; closed gets the key that
// closes it.
func (m *helpModel) open(groups []helpGroup, closed func(tea.KeyMsg) tea.Cmd) {
	m.top, m.groups, m.closed = 0, groups, closed
}

// lines is the help text, one line each.
func (m *helpModel) lines() []string {
	var lines []string
	for _, g := range m.groups {
		lines = append(lines, m.st.title.Render(g.title))
		for _, k := range g.keys {
			h := k.Help()
			lines = append(lines, fmt.Sprintf("  %-12s %s", h.Key, h.Desc))
		}
	}
	return append(lines, m.st.title.Render("Copy (y, then)"),
		"  y value · p path as a JSON array",
		"  r output_by_reference object",
		m.st.title.Render("Marks"),
		"  ▶ next  ✓ ok  ✗ error  - not reached",
		"  ● breakpoint",
		"  ! tool is destructive",
		"  ro tool is read-only",
		"  E1 W2 I1 diagnostics: errors,",
		"    warnings, infos",
		"  ← the selected step reads it",
		"  → it reads the selected step",
		m.st.title.Render("Paths"),
		`  step.key["a.b"][0]: key "a.b",`,
		`    index 0; key "0" is ["0"]`)
}

// helpLayout is how the help is flowed: cols columns of colW cells and
// rows rows; scroll is true when the lines do not all fit at once.
func (m *helpModel) layout(lines []string) (cols, colW, rows int, scroll bool) {
	colW = 0
	for _, l := range lines {
		colW = max(colW, ansi.StringWidth(l)+2)
	}
	colW = min(colW, m.w)
	cols = max(m.w/max(colW, 1), 1)
	rows = max(m.h-1, 1)
	if cols*rows >= len(lines) {
		// it fits: use no more columns than needed
		cols = (len(lines) + rows - 1) / rows
		return cols, max(m.w/cols, 1), rows, false
	}
	return cols, max(m.w/cols, 1), max(m.h-2, 1), true
}

// Update scrolls the help; any other key closes it.
func (m *helpModel) Update(msg tea.Msg) (component, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return m, nil
	}
	if m.scroll(k) {
		return m, nil
	}
	return nil, m.closed(k)
}

// scroll moves the help by the key; false when the key closes it.
func (m *helpModel) scroll(k tea.KeyMsg) bool {
	lines := m.lines()
	cols, _, rows, scroll := m.layout(lines)
	page := cols * rows
	last := max(len(lines)-page, 0)
	ks := m.keys
	switch {
	case !scroll:
		return false
	case key.Matches(k, ks.Down):
		m.top++
	case key.Matches(k, ks.Up):
		m.top--
	case key.Matches(k, ks.PageDown):
		m.top += page
	case key.Matches(k, ks.PageUp):
		m.top -= page
	case key.Matches(k, ks.Top):
		m.top = 0
	case key.Matches(k, ks.Bottom):
		m.top = last
	default:
		return false
	}
	m.top = min(max(m.top, 0), last)
	return true
}

func (m *helpModel) View() string {
	lines := m.lines()
	cols, cw, rows, scroll := m.layout(lines)
	page := cols * rows
	top := min(max(m.top, 0), max(len(lines)-page, 0))
	hint := "  (any key closes)"
	if scroll {
		hint = "  (j/k, pgdn/pgup scroll · any other key closes)"
	}
	var b strings.Builder
	b.WriteString(ansi.Truncate(m.st.title.Render("planctl debug: keys")+m.st.dim.Render(hint), m.w, "…"))
	for r := 0; r < rows; r++ {
		b.WriteByte('\n')
		var row strings.Builder
		for c := 0; c < cols; c++ {
			k := top + c*rows + r
			if k >= len(lines) {
				break
			}
			if c > 0 {
				row.WriteString(pad("", cw*c-ansi.StringWidth(row.String())))
			}
			row.WriteString(ansi.Truncate(lines[k], cw-1, "…"))
		}
		b.WriteString(strings.TrimRight(row.String(), " "))
	}
	if scroll {
		b.WriteByte('\n')
		end := min(top+page, len(lines))
		more := "↓ more below"
		if end == len(lines) {
			more = "end"
		}
		b.WriteString(ansi.Truncate(m.st.dim.Render(fmt.Sprintf("lines %d-%d of %d · %s", top+1, end, len(lines), more)), m.w, "…"))
	}
	return b.String()
}
