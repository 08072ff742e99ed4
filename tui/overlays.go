package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/planctl/planctl/plan/jsontext"
)

// fullModel is the whole value of the tree's cursor (enter), over the
// whole screen, scrolled with j/k and pgdn/pgup; y copies it; any other
// key closes it.
type fullModel struct {
	*common
	lines []string
	top   int
	page  int    // the rows pgdn/pgup scroll by: the panes' height
	path  string // the value's path, for the title
	title string // the title openText was given, instead
}

func newFullModel(c *common) *fullModel { return &fullModel{common: c} }

// Init: nothing to start.
func (f *fullModel) Init() tea.Cmd { return nil }

// SetSize: the overlay draws on the whole screen (common.w, common.h) and
// pages by h, the panes' height.
func (f *fullModel) SetSize(_, h int) { f.page = h }

// ShortHelp: the keys that scroll and copy it.
func (f *fullModel) ShortHelp() []key.Binding {
	return []key.Binding{f.keys.Down, f.keys.Up, f.keys.PageDown, f.keys.PageUp, f.keys.Copy}
}

func (f *fullModel) open(value, path string) {
	f.lines, f.top, f.path, f.title = strings.Split(value, "\n"), 0, path, ""
}

// openText shows text under a title of its own (a step's attempts).
func (f *fullModel) openText(title, text string) {
	f.lines, f.top, f.title = strings.Split(text, "\n"), 0, title
}

// Update scrolls and copies; any other key closes the overlay.
func (f *fullModel) Update(msg tea.Msg) (component, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return f, nil
	}
	ks := f.keys
	switch {
	case key.Matches(k, ks.Copy):
		return f, func() tea.Msg { return copyMsg{text: strings.Join(f.lines, "\n"), what: "the value"} }
	case key.Matches(k, ks.Down):
		f.top = min(f.top+1, max(len(f.lines)-1, 0))
	case key.Matches(k, ks.Up):
		f.top = max(f.top-1, 0)
	case key.Matches(k, ks.PageDown):
		f.top = min(f.top+f.page-1, max(len(f.lines)-1, 0))
	case key.Matches(k, ks.PageUp):
		f.top = max(f.top-f.page+1, 0)
	default:
		f.lines = nil
		return nil, nil
	}
	return f, nil
}

func (f *fullModel) View() string {
	title := f.title
	if title == "" {
		title = "Value of " + f.path
	}
	var b strings.Builder
	b.WriteString(ansi.Truncate(f.st.title.Render(sanitizeText(title))+f.st.dim.Render("  (j/k scroll · y copy · any other key closes)"), f.w, "…"))
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

// questionModel asks on the message line and takes one key for an answer
// (quit while a step runs? what to copy?): any key closes it, and goes to
// answer, the root's.
type questionModel struct {
	*common
	ask    func() string // the question, as it stands when drawn
	answer func(tea.KeyMsg) tea.Cmd
}

func newQuestion(c *common, ask func() string, answer func(tea.KeyMsg) tea.Cmd) *questionModel {
	return &questionModel{common: c, ask: ask, answer: answer}
}

// Init: nothing to start.
func (q *questionModel) Init() tea.Cmd { return nil }

// SetSize: the question is one line of the screen's width.
func (q *questionModel) SetSize(int, int) {}

// ShortHelp: any key answers.
func (q *questionModel) ShortHelp() []key.Binding { return nil }

// Update answers with the key.
func (q *questionModel) Update(msg tea.Msg) (component, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		return nil, q.answer(k)
	}
	return q, nil
}

// View is the question.
func (q *questionModel) View() string { return q.ask() }

func (q *questionModel) lines() (string, string) { return "", q.ask() }
