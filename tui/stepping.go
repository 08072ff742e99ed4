package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/tui/internal/show"
)

// Stepping: every action is the Debugger's (runner.Debugger), called in a
// command that sends a message back when it is done. The run is only ever
// driven from one command at a time (busy), and a restart bumps the
// generation so late answers are dropped.

// step runs the next step (n) or continues (c) in a command. After a
// failure the next step is the failed one: n and c retry it.
func (m *model) stepRun(cont bool) tea.Cmd {
	if len(m.p.Steps) == 0 {
		return m.fail("nothing to run: the plan has no steps (see its diagnostics)")
	}
	if m.run.Done() {
		return m.note("every step has run (%s): R restarts, ctrl+r re-runs the selected step", m.run.Status())
	}
	next := m.run.Cursor()
	ctx, cancel := context.WithCancel(m.ctx)
	m.busy, m.cancel, m.busyWhat, m.busySince = true, cancel, m.label(next), time.Now()
	m.following = true
	m.sel = next
	m.step.reset()
	m.version++
	d, r, gen := m.dbg, m.run, m.gen
	return tea.Batch(m.showStep(), m.tick(), func() tea.Msg {
		defer cancel()
		last := -1
		if !cont {
			if i, _, ok := d.Next(ctx); ok {
				last = i
			}
			return stepsDoneMsg{gen: gen, last: last}
		}
		start := r.Cursor()
		d.Continue(ctx)
		cur := r.Cursor()
		switch {
		case r.Failed():
			last = cur
		case cur > start:
			last = cur - 1
		}
		return stepsDoneMsg{gen: gen, last: last}
	})
}

func (m *model) stepsDone(msg stepsDoneMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	m.busy, m.cancel = false, nil
	m.version++
	m.refreshResultDiags() // resultdiags.go
	var cmds []tea.Cmd
	say := func(err bool, s string) {
		if m.stepNote != "" {
			s = m.stepNote + "; " + s
			m.stepNote = ""
		}
		if err {
			cmds = append(cmds, m.fail("%s", s))
		} else {
			cmds = append(cmds, m.note("%s", s))
		}
	}
	dropped := func() string {
		if d := m.dropQueue(); d != "" {
			return " (dropped the queued keys " + d + ")"
		}
		return ""
	}
	if msg.last >= 0 {
		m.sel = msg.last
	}
	halted := m.dbg.Halted()
	switch {
	case msg.last >= 0 && m.run.Step(msg.last).Status == runner.StepError:
		st := m.run.Step(msg.last)
		say(true, fmt.Sprintf("%s failed: %s%s; i edits it, n retries it", m.label(msg.last), oneLine(st.Error), dropped()))
	case halted != "":
		m.sel = min(m.run.Cursor(), len(m.p.Steps)-1)
		say(false, halted+dropped())
	case msg.last < 0:
	case !m.run.Done() && m.dbg.IsBreak(m.run.Cursor()):
		say(false, "stopped at the breakpoint on "+m.label(m.run.Cursor()))
	default:
		say(false, fmt.Sprintf("%s: ok in %s", m.label(msg.last), show.Duration(m.run.Step(msg.last).Duration)))
	}
	cmds = append(cmds, m.showStep(), m.runQueue())
	return tea.Batch(cmds...)
}

// rerun re-runs step i, keeping the results before it; from a step after a
// failed or unrun one, the Debugger starts from the first such step and
// says so.
func (m *model) rerun(i int) tea.Cmd {
	if len(m.p.Steps) == 0 || i < 0 || i >= len(m.p.Steps) {
		return nil
	}
	_, note, err := m.dbg.Rerun(i)
	if err != nil {
		return m.fail("%v", err)
	}
	m.stepNote = note
	m.version++
	return m.stepRun(false)
}

// restart forgets every result; the Debugger reconnects the tools when
// their connection can.
func (m *model) restart() tea.Cmd {
	m.gen++
	m.busy, m.busyWhat = true, "restart"
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel = cancel
	d, gen := m.dbg, m.gen
	return tea.Batch(m.tick(), func() tea.Msg {
		defer cancel()
		return restartedMsg{gen: gen, err: d.Restart(ctx)}
	})
}

func (m *model) restarted(msg restartedMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	m.busy, m.cancel = false, nil
	m.version++
	m.results.forget()
	m.sel = 0
	m.step.reset()
	cmd := m.showStep()
	if msg.err != nil {
		if d := m.dropQueue(); d != "" {
			return tea.Batch(cmd, m.fail("%v (dropped the queued keys %s)", msg.err, d))
		}
		return tea.Batch(cmd, m.fail("%v", msg.err))
	}
	return tea.Batch(cmd, m.note("restarted: n runs the first step"), m.runQueue())
}

// edit opens the editor on the arguments of the step an edit applies to:
// the next step, which after a failure is the failed one.
func (m *model) edit() tea.Cmd {
	if m.busy {
		return m.note("%s is running: wait before editing", m.busyLabel())
	}
	if len(m.p.Steps) == 0 {
		return m.note("the plan has no steps to edit")
	}
	i, err := m.dbg.EditableStep()
	if err != nil {
		return m.note("%v", err)
	}
	args, src := m.run.ArgsOf(i)
	text := "{}"
	if !args.IsZero() {
		text = string(jsontext.Indent(args.Raw(src)))
	}
	m.push(m.editor)
	return m.editor.open(i, text, m.applyEdit)
}

// applyEdit hands the edited arguments of step at to the Debugger, which
// validates the edited plan: its diagnostics of the step show at once.
// Text that is not JSON is refused, with where it stops parsing (the
// editor stays open and shows it).
func (m *model) applyEdit(at int, edited string) (cmd tea.Cmd, refused string) {
	text := []byte(edited)
	ds, err := m.dbg.SetArgs(at, text)
	if err != nil {
		var se *jsontext.SyntaxError
		if errors.As(err, &se) {
			pos := jsontext.NewSource("", text).Position(se.Offset)
			return nil, fmt.Sprintf("line %d, column %d: %v", pos.Line, pos.Column, err)
		}
		return nil, err.Error()
	}
	m.refreshPlan()
	check := m.checkPlan() // its data flow, and Concierge's verdict
	m.steps.planChanged()
	m.version++
	m.sel = at
	m.step.reset()
	cmd = tea.Batch(m.showStep(), check)
	label := m.label(at)
	switch {
	case plan.HasErrors(ds):
		return tea.Batch(cmd, m.fail("arguments of %s changed, with problems (%s): see the step pane; i edits again", label, severityMarks(plainStyles(), ds))), ""
	case len(ds) > 0:
		return tea.Batch(cmd, m.note("arguments of %s changed (%s: see the step pane): n runs it", label, severityMarks(plainStyles(), ds))), ""
	}
	return tea.Batch(cmd, m.note("arguments of %s changed, no problems found: n runs it", label)), ""
}
