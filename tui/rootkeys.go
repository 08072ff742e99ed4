package tui

import (
	"errors"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
)

// The root's keys. A key goes to the top overlay when one is open; else
// the root takes the keys that act on the run (runKey) or change what the
// screen shows (screenKey); the rest go to the focused pane (paneKey).

// key handles one key.
func (m *model) key(k tea.KeyMsg) tea.Cmd {
	if m.top() != nil {
		return m.updateTop(k)
	}
	if cmd, ok := m.runKey(k); ok {
		return cmd
	}
	if cmd, ok := m.screenKey(k); ok {
		return cmd
	}
	return m.paneKey(k)
}

// runKey takes the keys that drive the run, its breakpoints and the
// session: stepping (queued while a command runs), cancel, quit, edit.
func (m *model) runKey(k tea.KeyMsg) (tea.Cmd, bool) {
	ks := m.keys
	switch {
	case m.busy && key.Matches(k, ks.Cancel):
		m.cancel()
		if d := m.dropQueue(); d != "" {
			return m.note("cancelling %s… and dropped the queued keys %s", m.busyLabel(), d), true
		}
		return m.note("cancelling %s…", m.busyLabel()), true
	case key.Matches(k, ks.Quit):
		if m.busy || m.dbg.Edited() {
			m.push(newQuestion(m.common, m.quitQuestion, m.quitAnswer))
			return nil, true
		}
		return tea.Quit, true
	case !m.busy && (key.Matches(k, ks.WritePlan) || key.Matches(k, ks.Reload) || key.Matches(k, ks.Undo) ||
		key.Matches(k, ks.Redo) || key.Matches(k, ks.Fix)):
		return m.planKey(k), true
	case !m.busy && (key.Matches(k, ks.SetTool) || key.Matches(k, ks.Delete) ||
		key.Matches(k, ks.External) || key.Matches(k, ks.Attempts)):
		return m.stepKey(k), true
	case m.busy && (key.Matches(k, ks.Next) || key.Matches(k, ks.Continue) ||
		key.Matches(k, ks.Restart) || key.Matches(k, ks.Rerun)):
		return m.enqueue(k), true
	case key.Matches(k, ks.Next):
		return m.stepRun(false), true
	case key.Matches(k, ks.Continue):
		return m.stepRun(true), true
	case key.Matches(k, ks.Break):
		return m.toggleBreak(), true
	case key.Matches(k, ks.Restart):
		return m.confirmRerun("restart", 0, m.restart), true
	case key.Matches(k, ks.Rerun):
		sel := m.sel
		if sel < 0 || sel >= len(m.p.Steps) {
			return m.rerun(sel), true // says nothing, runs nothing
		}
		return m.confirmRerun("rerun "+m.label(sel), sel, func() tea.Cmd { return m.rerun(sel) }), true
	case key.Matches(k, ks.Edit):
		return m.edit(), true
	case key.Matches(k, ks.Cancel):
		return m.note("nothing is running"), true
	case key.Matches(k, ks.Trace):
		path := m.o.TracePath
		if path == "" {
			path = trace.DefaultPath(m.p.Src.Name)
		}
		m.openPrompt(modeTrace, tracePrompt, path, m.writeTrace)
		return nil, true
	}
	return nil, false
}

func (m *model) toggleBreak() tea.Cmd {
	if len(m.p.Steps) == 0 {
		return nil
	}
	if m.dbg.SetBreak(m.sel, !m.dbg.IsBreak(m.sel)) {
		return m.note("breakpoint on %s cleared", m.label(m.sel))
	}
	return m.note("breakpoint on %s: c stops before it", m.label(m.sel))
}

// confirmRerun runs do at once when it calls no tool again that already
// ran (the failed step's retry, read-only tools); otherwise it asks
// first, naming the tools, as the REPL does on a terminal.
func (m *model) confirmRerun(what string, from int, do func() tea.Cmd) tea.Cmd {
	again := m.dbg.CallsAgain(from)
	if len(again) == 0 {
		return do()
	}
	for k, t := range again {
		if h := m.dbg.ToolHint(t); h != "" {
			again[k] = t + " (" + h + ")"
		}
	}
	q := m.st.errMsg.Render(what + " calls again " + strings.Join(again, ", ") + ", which already ran: go on? y/n")
	m.push(newQuestion(m.common, func() string { return q }, func(k tea.KeyMsg) tea.Cmd {
		if k.String() == "y" || k.String() == "Y" {
			return do()
		}
		return tea.Batch(m.note("%s: nothing changed", what), m.runQueue())
	}))
	return nil
}

// quitQuestion and quitAnswer are the question q asks while a command runs.
func (m *model) quitQuestion() string {
	if !m.busy {
		return m.st.errMsg.Render("the plan has edits that are not saved (S saves them): quit anyway? y/n")
	}
	return m.st.errMsg.Render(m.busyLabel() + " is running: quit anyway? y/n")
}

// planKey changes the plan as a whole: save, reload, undo, redo, fix.
// Each is one Debugger call; the screen then shows the plan it made.
func (m *model) planKey(k tea.KeyMsg) tea.Cmd {
	ks := m.keys
	var ch runner.Change
	var err error
	switch {
	case key.Matches(k, ks.WritePlan):
		path, err := m.dbg.Write("")
		if err != nil {
			return m.fail("%v", err)
		}
		return m.note("plan written to %s", path)
	case key.Matches(k, ks.Reload):
		ch, err = m.dbg.Reload()
	case key.Matches(k, ks.Undo):
		ch, err = m.dbg.Undo()
	case key.Matches(k, ks.Redo):
		ch, err = m.dbg.Redo()
	case key.Matches(k, ks.Fix):
		ch, err = m.fixSelected()
	}
	if err != nil {
		return m.fail("%v", err)
	}
	return m.planChanged(m.note("%s: %s", ch.What, ch.Summary()))
}

// planChanged shows the plan a Debugger call made, and say.
func (m *model) planChanged(say tea.Cmd) tea.Cmd {
	m.refreshPlan()
	check := m.checkPlan()
	m.steps.planChanged()
	m.version++
	if m.sel >= len(m.p.Steps) {
		m.sel = max(len(m.p.Steps)-1, 0)
	}
	m.step.reset()
	return tea.Batch(m.showStep(), check, say)
}

// fixSelected applies the first fix offered for a diagnostic of the
// selected step (diagnostics numbered as the Debugger lists them).
func (m *model) fixSelected() (runner.Change, error) {
	if !m.dbg.Checked() {
		return runner.Change{}, errors.New("the plan is still being checked: F applies a fix once its diagnostics show")
	}
	for n, d := range m.dbg.Diagnostics() {
		if d.StepIndex != m.sel {
			continue
		}
		if fs, err := m.dbg.Fixes(n + 1); err == nil && len(fs) > 0 {
			return m.dbg.ApplyFix(n+1, fs[0].Sub)
		}
	}
	return runner.Change{}, errors.New("no diagnostic of this step has a fix: i edits its arguments")
}

func (m *model) quitAnswer(k tea.KeyMsg) tea.Cmd {
	if k.String() == "y" || k.String() == "Y" {
		if m.cancel != nil {
			m.cancel()
		}
		return tea.Quit
	}
	if !key.Matches(k, m.keys.Cancel) {
		return m.note("still debugging")
	}
	return m.key(k) // ctrl+c or x at the question: the same as without it
}

// screenKey takes the keys that change what the screen shows: help, focus,
// the result pane's views, queries, watches, go-to.
func (m *model) screenKey(k tea.KeyMsg) (tea.Cmd, bool) {
	ks := m.keys
	switch {
	case key.Matches(k, ks.Help):
		m.help.open(m.keys.helpGroups(m.results.ShortHelp(), m.step.ShortHelp()), m.helpClosed)
		m.push(m.help)
		return nil, true
	case key.Matches(k, ks.Focus):
		m.setFocus((m.focus + 1) % paneCount)
		return nil, true
	case key.Matches(k, ks.FocusBack):
		m.setFocus((m.focus + paneCount - 1) % paneCount)
		return nil, true
	case key.Matches(k, ks.Whole):
		m.results.whole, m.results.argsView, m.results.queryView = !m.results.whole, false, false
		return m.showStep(), true
	case key.Matches(k, ks.Args):
		if len(m.p.Steps) == 0 {
			return nil, true
		}
		m.results.argsView, m.results.whole, m.results.queryView = !m.results.argsView, false, false
		return m.showStep(), true
	case key.Matches(k, ks.Back) && m.results.queryView:
		m.results.queryView = false
		return m.showStep(), true
	case key.Matches(k, ks.Watch):
		m.openQuery(modeWatch, watchPrompt, "")
		return nil, true
	case key.Matches(k, ks.ServerLog):
		m.logsSeen = m.dbg.ServerLogs().Count()
		m.push(m.logs)
		return nil, true
	case key.Matches(k, ks.Query), key.Matches(k, ks.BreakIf), key.Matches(k, ks.GoTo):
		if len(m.p.Steps) == 0 {
			return m.note("the plan has no steps"), true
		}
		switch {
		case key.Matches(k, ks.Query):
			m.openQuery(modeQuery, queryPrompt, m.results.queryExpr)
		case key.Matches(k, ks.BreakIf):
			m.openQuery(modeBreakIf, "break "+m.label(m.sel)+" if ", m.dbg.BreakCondition(m.sel))
		default:
			m.openPrompt(modeGoto, gotoPrompt, "", func(v string) tea.Cmd { return m.gotoStep(strings.TrimSpace(v)) })
		}
		return nil, true
	}
	return nil, false
}

// helpClosed: ctrl+c closes the help and does what it does without it.
func (m *model) helpClosed(k tea.KeyMsg) tea.Cmd {
	if k.String() == "ctrl+c" {
		return m.key(k)
	}
	return nil
}

func (m *model) openPrompt(md mode, prompt, value string, enter func(string) tea.Cmd) {
	m.prompt.open(md, prompt, value, enter)
	m.push(m.prompt)
}

func (m *model) openQuery(md mode, prompt, value string) {
	m.query.open(md, prompt, value, func(v string) tea.Cmd { return m.queryEntered(md, v) })
	m.push(m.query)
}

// paneKey hands a key to the focused pane; the root acts on what the
// pane asks (a new selection, a reference to follow, an overlay).
func (m *model) paneKey(k tea.KeyMsg) tea.Cmd {
	ks := m.keys
	if m.focus != paneTree && key.Matches(k, ks.Search) {
		// What / searches is the result tree: from another pane it goes
		// there first, rather than doing nothing.
		if m.results.tree.empty() {
			return m.note("nothing to search yet: the selected step has no result")
		}
		m.setFocus(paneTree)
		return m.treeKey(k)
	}
	switch m.focus {
	case paneSteps:
		if len(m.p.Steps) > 0 && (key.Matches(k, ks.Full) || key.Matches(k, ks.Expand)) {
			m.setFocus(paneTree)
			return nil
		}
		m.steps.SetSize(m.leftWidth(), m.bodyHeight())
		if m.steps.Update(k); m.steps.picked >= 0 {
			m.sel, m.following = m.steps.picked, false
			m.step.reset()
			return m.showStep()
		}
		return nil
	case paneStep:
		m.ensurePane() // its references, for the selected step
		if key.Matches(k, ks.Full) || key.Matches(k, ks.Expand) {
			if len(m.step.refs) == 0 {
				return m.note("this step has no reference to follow")
			}
			return m.jump(max(m.step.cur, 0))
		}
		m.step.Update(k)
		return nil
	}
	return m.treeKey(k)
}

// treeKey: the result pane's keys; those that open an overlay are the
// root's.
func (m *model) treeKey(k tea.KeyMsg) tea.Cmd {
	t := m.results.tree
	switch {
	case t.empty():
		return nil
	case key.Matches(k, m.keys.Search):
		m.openPrompt(modeSearch, searchPrompt, "", m.results.search) // earlier searches: up
		return nil
	case key.Matches(k, m.keys.Copy):
		m.push(newQuestion(m.common, copyQuestion, func(k tea.KeyMsg) tea.Cmd { return m.copyKey(k.String()) }))
		return nil
	case key.Matches(k, m.keys.Full):
		m.full.open(t.fullValue(), "")
		m.push(m.full)
		m.full.SetSize(m.w, m.bodyHeight())
		return nil
	}
	_, cmd := m.results.Update(k)
	return cmd
}

func copyQuestion() string { return "copy: y value · p path · r output_by_reference object" }
