package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// editorModel is the arguments editor (i): the whole screen, a textarea
// with the step's arguments as JSON, and under it why the last ctrl+s was
// refused. The root hands the text to the Debugger (model.applyEdit).
type editorModel struct {
	*common
	ta  textarea.Model
	at  int    // the step being edited
	err string // why the edit was refused
}

// editResult is what a key did to the editor.
type editResult int

const (
	editTyping editResult = iota
	editCancelled
	editApplied // ctrl+s: the root applies the text
)

func newEditorModel(c *common) *editorModel {
	ta := textarea.New()
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.Cursor.Style, ta.Cursor.TextStyle = c.st.cursor, c.st.punct
	s := textarea.Style{Base: c.st.punct, CursorLine: c.st.punct, CursorLineNumber: c.st.dim, EndOfBuffer: c.st.dim,
		LineNumber: c.st.dim, Placeholder: c.st.dim, Prompt: c.st.dim, Text: c.st.punct}
	ta.FocusedStyle, ta.BlurredStyle = s, s
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.MaxHeight = 0
	return &editorModel{common: c, ta: ta}
}

// SetSize leaves a title row above and three error rows below.
func (e *editorModel) SetSize(w, h int) {
	e.ta.SetWidth(max(w-2, 10))
	e.ta.SetHeight(max(h-5, 3))
}

// open edits step i's arguments, text.
func (e *editorModel) open(i int, text string) tea.Cmd {
	e.at, e.err = i, ""
	e.SetSize(e.w, e.h)
	e.ta.SetValue(text)
	return e.ta.Focus()
}

func (e *editorModel) close()               { e.ta.Blur() }
func (e *editorModel) Value() string        { return e.ta.Value() }
func (e *editorModel) SetValue(text string) { e.ta.SetValue(text) }

// Update edits; esc cancels and ctrl+s asks the root to apply.
func (e *editorModel) Update(msg tea.Msg) (editResult, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch k.String() {
		case "esc":
			return editCancelled, nil
		case "ctrl+s":
			return editApplied, nil
		}
	}
	var cmd tea.Cmd
	e.ta, cmd = e.ta.Update(msg)
	return editTyping, cmd
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
