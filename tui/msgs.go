package tui

import (
	"time"

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
