package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/planctl/planctl/plan/jsontext"
)

// fullModel is the whole value of the tree's cursor (enter), over the
// whole screen, scrolled with j/k and pgdn/pgup; any other key closes it
// (y, which copies it, is the root's).
type fullModel struct {
	*common
	lines []string
	top   int
	path  string // the value's path, for the title
}

func newFullModel(c *common) *fullModel { return &fullModel{common: c} }

// SetSize: the overlay is the whole screen (common.w, common.h).
func (f *fullModel) SetSize(int, int) {}

func (f *fullModel) open(value, path string) {
	f.lines, f.top, f.path = strings.Split(value, "\n"), 0, path
}

// Update scrolls; it reports whether the key closed the overlay.
func (f *fullModel) Update(k tea.KeyMsg, page int) (closed bool) {
	ks := f.keys
	switch {
	case key.Matches(k, ks.Down):
		f.top = min(f.top+1, max(len(f.lines)-1, 0))
	case key.Matches(k, ks.Up):
		f.top = max(f.top-1, 0)
	case key.Matches(k, ks.PageDown):
		f.top = min(f.top+page-1, max(len(f.lines)-1, 0))
	case key.Matches(k, ks.PageUp):
		f.top = max(f.top-page+1, 0)
	default:
		f.lines = nil
		return true
	}
	return false
}

func (f *fullModel) View() string {
	var b strings.Builder
	b.WriteString(ansi.Truncate(f.st.title.Render("Value of "+f.path)+f.st.dim.Render("  (j/k scroll · y copy · any other key closes)"), f.w, "…"))
	b.WriteByte('\n')
	rows := f.h - 1
	n := 0
	for i := f.top; i < len(f.lines) && n < rows; i++ {
		for _, l := range strings.Split(ansi.Hardwrap(sanitizeText(f.lines[i]), f.w, false), "\n") {
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

// sanitizeText keeps tabs readable and shows every other hidden character
// as its escape (jsontext.EscapeText).
func sanitizeText(s string) string {
	return jsontext.EscapeText(strings.ReplaceAll(s, "\t", "    "))
}
