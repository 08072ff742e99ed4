package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// The panes and the status bar as Components. The root lays the panes out
// side by side row by row (model.View), so it draws them with rows; View
// joins the same rows.

// Init: nothing to start.
func (s *stepsModel) Init() tea.Cmd { return nil }

// View is the pane.
func (s *stepsModel) View() string { return strings.Join(s.rows(), "\n") }

// ShortHelp: the keys that move the selection.
func (s *stepsModel) ShortHelp() []key.Binding {
	ks := s.keys
	return []key.Binding{ks.Up, ks.Down, ks.PageUp, ks.PageDown, ks.Top, ks.Bottom}
}

// Init: nothing to start.
func (s *stepModel) Init() tea.Cmd { return nil }

// View is the pane.
func (s *stepModel) View() string { return strings.Join(s.rows(), "\n") }

// ShortHelp: the keys that move between references and follow them (the
// root follows: it changes the selection).
func (s *stepModel) ShortHelp() []key.Binding {
	return []key.Binding{withHelp(s.keys.Down, "j, k", "next/prev reference"), s.keys.Follow}
}

// Init: nothing to start.
func (r *resultsModel) Init() tea.Cmd { return nil }

// View is the pane.
func (r *resultsModel) View() string { return strings.Join(r.rows(), "\n") }

// ShortHelp: the tree's keys, and those the root acts on for it (search,
// copy, the whole value, the views).
func (r *resultsModel) ShortHelp() []key.Binding {
	k := r.keys
	return []key.Binding{k.Expand, k.Collapse, k.ExpandDeep, k.CollapseDeep, k.ExpandAll, k.CollapseAll, k.Level,
		k.NextSib, k.PrevSib, k.Search, k.NextMatch, k.PrevMatch, k.Copy, k.Full, k.Whole, k.Args}
}

// Init: nothing to start.
func (s *statusBar) Init() tea.Cmd { return nil }

// View is the header line; the root draws the bottom lines (footer) with
// what the overlays ask there.
func (s *statusBar) View() string { return s.header() }

// ShortHelp: the bar takes no keys.
func (s *statusBar) ShortHelp() []key.Binding { return nil }
