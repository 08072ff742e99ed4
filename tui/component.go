package tui

import (
	"slices"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// component is one part of the debugger's screen, as soft-serve's
// components are: the panes (steps.go, steppane.go, results.go), the
// status bar, and the overlays (help, prompts, the query line, the
// editor, questions, a whole value). Each reads the environment (common)
// and the root's run (runState), and changes neither: what a key asks of
// the run goes back to the root as a message, or as the report the root
// reads after Update (stepsModel.picked).
type component interface {
	Init() tea.Cmd
	// Update takes a message. An overlay returns nil when the message
	// closed it; a pane returns itself.
	Update(tea.Msg) (component, tea.Cmd)
	View() string
	SetSize(w, h int)
	// ShortHelp is the component's keys, for the ? screen.
	ShortHelp() []key.Binding
}

// lineOverlay is an overlay on the path line and the message line, under
// the panes (a prompt, the query line, a question); the others cover the
// screen.
type lineOverlay interface {
	component
	// lines is what the path line and the message line show; an empty
	// field leaves the path line to the root.
	lines() (field, question string)
}

// textField is an overlay that takes typed text: keys that arrive
// together stay one message (a paste, a fast typist).
type textField interface {
	component
	takesText()
}

// The overlay stack: the modes. The top overlay gets the keys before the
// panes and the root; when its Update returns nil it is closed.

// top is the overlay that has the keys, or nil.
func (m *model) top() component {
	if len(m.overlays) == 0 {
		return nil
	}
	return m.overlays[len(m.overlays)-1]
}

// push opens an overlay over the screen.
func (m *model) push(o component) { m.overlays = append(m.overlays, o) }

// updateTop hands msg to the top overlay. It is off the stack while it
// works, so what it calls (the root's actions) sees the screen beneath, as
// once it has closed; it goes back under what those actions opened.
func (m *model) updateTop(msg tea.Msg) tea.Cmd {
	n := len(m.overlays) - 1
	o := m.overlays[n]
	m.overlays = m.overlays[:n]
	next, cmd := o.Update(msg)
	if next != nil {
		m.overlays = slices.Insert(m.overlays, n, next)
	}
	return cmd
}
