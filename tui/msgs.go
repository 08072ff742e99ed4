package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/plan/runner"
)

// The messages the debugger's commands send back to Update. Each async
// result carries the run generation it was started in: a restart bumps the
// generation, and late answers from before it are dropped.

// stepsDoneMsg ends a Next, Continue or Rerun command.
type stepsDoneMsg struct {
	gen  int
	last int // the last step that ran; -1 when none did
}

// restartedMsg ends a restart (after an upstream reconnect, if any).
type restartedMsg struct {
	gen int
	err error
}

// treeMsg delivers a parsed result tree.
type treeMsg struct {
	key  treeKey
	doc  *doc
	err  error
	took time.Duration
}

// searchMsg delivers the nodes matching a search.
type searchMsg struct {
	key     treeKey
	query   string
	matches []int
}

// traceMsg ends a trace write.
type traceMsg struct {
	path string
	err  error
}

// tickMsg redraws while a step runs (spinner and elapsed time).
type tickMsg struct{ gen int }

// clearMsg clears a status message unless a newer one replaced it.
type clearMsg struct{ seq int }

// treeKey names a parsed result: the step and the exact bytes.
type treeKey struct {
	step int
	ptr  *byte
	n    int
}

func keyOf(step int, st runner.StepState) treeKey {
	if len(st.Result) == 0 {
		return treeKey{step: step}
	}
	return treeKey{step: step, ptr: &st.Result[0], n: len(st.Result)}
}

// noteMsg puts a message on the status bar: a component's word on what a
// key did (note). The root shows it, as its own say does.
type noteMsg struct {
	isErr bool
	text  string
}

// note is a command that puts a message on the status bar.
func note(isErr bool, format string, a ...any) tea.Cmd {
	msg := noteMsg{isErr: isErr, text: fmt.Sprintf(format, a...)}
	return func() tea.Msg { return msg }
}

// copyMsg puts text on the clipboard (model.copy): what names it in the
// note that says so.
type copyMsg struct{ text, what string }
