package tui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// Seeing what a step does: in the step pane, j/k move between the step's
// references and enter (or l) jumps to the node a reference reads, in the
// source step's result; a shows the arguments the step sends, resolved, as
// a tree (results.go); : goes to a step by id or #N, completing ids as
// they are typed (prompt.go). Jumps move the selection, the focus and the
// tree's cursor at once, so they are the root's.

// jump selects the step that reference k of the selected step reads and
// puts the tree's cursor on the node it reads, or on the deepest node of
// its path that exists (the step pane says why the rest does not).
func (m *model) jump(k int) tea.Cmd {
	i, pr := m.sel, m.step.refs[k]
	ref := pr.ref
	if ref.Err != "" {
		return m.fail("%s is not a reference that can be followed: %s", pr.param, ref.Err)
	}
	// the engine walks the path (as far as it goes); the step and the node
	// are found by where the bytes it returns lie
	short := *ref
	var v []byte
	var err error
	for n := len(ref.Path); n >= 0; n-- {
		short.Path = ref.Path[:n]
		if v, err = m.run.ResolveRef(i, &short); err == nil {
			break
		}
	}
	if err != nil {
		// no result to read: say which step has not run, if one has the id
		if j := m.p.StepBefore(i, ref.Step); j >= 0 {
			m.selectStep(j)
			return tea.Batch(m.showStep(), m.note("%s has no result yet: n runs the next step", m.label(j)))
		}
		return m.fail("%v", err)
	}
	j, off := -1, -1
	for j = i - 1; j >= 0; j-- {
		if off = offsetIn(m.run.Step(j).Result, v); off >= 0 {
			break
		}
	}
	if j < 0 {
		return m.fail("the value %s reads is not in any earlier step's result", refText(ref, m.p.Src.Bytes))
	}
	m.selectStep(j)
	m.results.whole, m.results.argsView = false, false
	m.setFocus(paneTree)
	m.results.jumpTo = off
	cmd := m.showStep()
	if m.results.tree != nil && m.results.jumpTo >= 0 {
		m.results.applyJump() // the tree was parsed already
	}
	what := refText(ref, m.p.Src.Bytes)
	if len(short.Path) < len(ref.Path) {
		return tea.Batch(cmd, m.fail("%s: only %d of its %d path elements exist (see the step pane of %s)", what, len(short.Path), len(ref.Path), m.label(i)))
	}
	return tea.Batch(cmd, m.note("%s, read by %s of %s", what, pr.param, m.label(i)))
}

// offsetIn is where sub starts in b when sub is a part of b, else -1.
func offsetIn(b, sub []byte) int {
	if len(sub) == 0 || len(b) == 0 {
		return -1
	}
	off := cap(b) - cap(sub)
	if off < 0 || off >= len(b) || &b[off] != &sub[0] {
		return -1
	}
	return off
}

// gotoStep selects the step named by id or #N; a text that names none but
// matches exactly one id goes there.
func (m *model) gotoStep(s string) tea.Cmd {
	if s == "" {
		return nil
	}
	i, err := m.dbg.FindStep(s)
	if err != nil {
		if len(m.prompt.matches) != 1 {
			return m.fail("%v", err)
		}
		i = m.prompt.matches[0]
	}
	m.selectStep(i)
	m.setFocus(paneSteps)
	return tea.Batch(m.showStep(), m.note("step %s (#%d)", m.label(i), i))
}
