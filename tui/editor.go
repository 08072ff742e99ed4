package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// editorModel is the arguments editor (i): the whole screen, a textarea
// with the step's arguments as JSON, and under it why the last ctrl+s was
// refused. The root hands the text to the Debugger (model.applyEdit).
type editorModel struct {
	*common
	*runState
	ta    textarea.Model
	at    int                                                     // the step being edited
	err   string                                                  // why the edit was refused
	apply func(at int, text string) (cmd tea.Cmd, refused string) // the root's, on ctrl+s
}

func newEditorModel(c *common, rs *runState) *editorModel {
	ta := textarea.New()
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.Cursor.Style, ta.Cursor.TextStyle = c.st.cursor, c.st.punct
	s := textarea.Style{Base: c.st.punct, CursorLine: c.st.punct, CursorLineNumber: c.st.dim, EndOfBuffer: c.st.dim,
		LineNumber: c.st.dim, Placeholder: c.st.dim, Prompt: c.st.dim, Text: c.st.punct}
	ta.FocusedStyle, ta.BlurredStyle = s, s
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.MaxHeight = 0
	return &editorModel{common: c, runState: rs, ta: ta}
}

// SetSize leaves a title row above and three error rows below.
func (e *editorModel) SetSize(w, h int) {
	e.ta.SetWidth(max(w-2, 10))
	e.ta.SetHeight(max(h-5, 3))
}

// Init: nothing to start.
func (e *editorModel) Init() tea.Cmd { return nil }

// ShortHelp: the editor's keys besides a text area's.
func (e *editorModel) ShortHelp() []key.Binding {
	return []key.Binding{
		key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "apply")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

func (e *editorModel) takesText() {}

// open edits step i's arguments, text; apply gets the text on ctrl+s and
// says why it refused it, or "".
func (e *editorModel) open(i int, text string, apply func(at int, text string) (tea.Cmd, string)) tea.Cmd {
	e.at, e.err, e.apply = i, "", apply
	e.SetSize(e.w, e.h)
	e.ta.SetValue(text)
	return e.ta.Focus()
}

func (e *editorModel) Value() string        { return e.ta.Value() }
func (e *editorModel) SetValue(text string) { e.ta.SetValue(text) }

// Update edits; esc cancels and ctrl+s applies, unless the root refuses.
func (e *editorModel) Update(msg tea.Msg) (component, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch k.String() {
		case "esc":
			e.ta.Blur()
			return nil, note(false, "arguments unchanged")
		case "ctrl+s":
			cmd, refused := e.apply(e.at, e.Value())
			if refused != "" {
				e.err = refused
				return e, cmd
			}
			e.ta.Blur()
			return nil, cmd
		}
	}
	var cmd tea.Cmd
	e.ta, cmd = e.ta.Update(msg)
	return e, cmd
}

func (e *editorModel) View() string {
	var b strings.Builder
	b.WriteString(ansi.Truncate(e.st.title.Render("Arguments of "+e.label(e.at)+" (JSON)")+e.st.dim.Render("  ctrl+s apply · esc cancel"), e.w, "…"))
	b.WriteByte('\n')
	b.WriteString(e.ta.View())
	b.WriteByte('\n')
	if e.err != "" {
		// below the editor are three rows: the whole error, wrapped
		lines := strings.Split(ansi.Wrap("✗ "+e.err, e.w, " "), "\n")
		for k, l := range lines[:min(len(lines), 3)] {
			if k > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(ansi.Truncate(e.st.errMsg.Render(l), e.w, "…"))
		}
	}
	return b.String()
}
