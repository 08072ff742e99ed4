package tui

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// lineField is the one-line text field the prompt and the query line are
// built on, on the path line: what it is open for, who gets what is
// entered, and the session's entries that up and down recall.
type lineField struct {
	input   textinput.Model
	kind    mode                 // what the field is open for
	enter   func(string) tea.Cmd // the root's, on what is entered
	history lineHistory
}

func newLineField(st *styles) lineField {
	// the field draws with the debugger's styles: its defaults use
	// lipgloss's renderer on stdout, which may be a pipe (--print)
	in := textinput.New()
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Cursor.Style, in.Cursor.TextStyle = st.cursor, st.punct
	in.PromptStyle, in.TextStyle, in.PlaceholderStyle = st.punct, st.punct, st.dim
	return lineField{input: in}
}

// SetSize fits the field to the width.
func (f *lineField) SetSize(w, _ int) { f.input.Width = max(w-len(f.input.Prompt)-2, 10) }

// Init: nothing to start.
func (f *lineField) Init() tea.Cmd { return nil }

// ShortHelp: the field's keys are a text field's.
func (f *lineField) ShortHelp() []key.Binding { return nil }

func (f *lineField) takesText() {}

// View is the field, on the path line.
func (f *lineField) View() string { return f.input.View() }

// start opens the field, w wide, for a kind, with a value to edit; enter
// gets what is entered.
func (f *lineField) start(kind mode, prompt, value string, enter func(string) tea.Cmd, w int) {
	f.kind, f.enter = kind, enter
	f.input.Prompt = prompt
	f.input.SetValue(value)
	f.input.CursorEnd()
	f.history.start()
	f.SetSize(w, 0)
	f.input.Focus()
}

// typeIn hands msg to the field.
func (f *lineField) typeIn(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(msg)
	return cmd
}
