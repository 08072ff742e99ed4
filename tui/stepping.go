package tui

import (
	"context"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/plan"
)

// Stepping: every tool call runs in a command, which sends a message back
// when it is done. The run is only ever driven from one command at a time
// (busy), and a restart bumps the generation so late answers are dropped.

// step runs the next step (n) or continues (c) in a command.
func (m *model) step(cont bool) tea.Cmd {
	if m.busy {
		return m.note("%s is still running: wait, or x to cancel it", m.busyLabel())
	}
	if len(m.p.Steps) == 0 {
		return m.fail("nothing to run: the plan has no steps (see its diagnostics)")
	}
	if m.run.Done() {
		return m.note("the run has ended (%s): R restarts, ctrl+r re-runs the selected step", m.run.Status())
	}
	next := m.run.Cursor()
	ctx, cancel := context.WithCancel(m.ctx)
	m.busy, m.cancel, m.busyWhat, m.busySince = true, cancel, m.label(next), time.Now()
	m.following = true
	m.sel = next
	m.paneTop = 0
	m.version++
	r, gen := m.run, m.gen
	var breaks map[int]bool
	if cont {
		breaks = make(map[int]bool, len(m.breaks))
		for b := range m.breaks {
			breaks[b] = true
		}
	}
	return tea.Batch(m.showStep(), m.tick(), func() tea.Msg {
		defer cancel()
		last := -1
		if !cont {
			if i, _, ok := r.Next(ctx); ok {
				last = i
			}
			return stepsDoneMsg{gen: gen, last: last}
		}
		start := r.Cursor()
		r.Continue(ctx, func(i int) bool { return breaks[i] })
		cur := r.Cursor()
		switch {
		case r.Status() == plan.RunPartial:
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
	var cmds []tea.Cmd
	if msg.last >= 0 {
		m.sel = msg.last
		st := m.run.Step(msg.last)
		switch {
		case st.Status == plan.StepError:
			cmds = append(cmds, m.fail("%s failed: %s", m.label(msg.last), oneLine(st.Error)))
		case !m.run.Done() && m.breaks[m.run.Cursor()]:
			cmds = append(cmds, m.note("stopped at the breakpoint on %s", m.label(m.run.Cursor())))
		default:
			cmds = append(cmds, m.note("%s: ok in %s", m.label(msg.last), fmtDur(st.Duration)))
		}
	}
	cmds = append(cmds, m.showStep())
	return tea.Batch(cmds...)
}

// rerun re-runs the selected step, keeping the results before it.
func (m *model) rerun() tea.Cmd {
	if m.busy {
		return m.note("%s is still running: wait, or x to cancel it", m.busyLabel())
	}
	if len(m.p.Steps) == 0 {
		return nil
	}
	if _, _, err := m.dbg.Rerun(m.sel); err != nil {
		return m.fail("%v", err)
	}
	m.version++
	return m.step(false)
}

// restart forgets every result; an upstream that can reconnect does so.
func (m *model) restart() tea.Cmd {
	if m.busy {
		return m.note("%s is still running: x cancels it, then R restarts", m.busyLabel())
	}
	m.gen++
	m.busy, m.busyWhat = true, "restart"
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel = cancel
	r, gen := m.run, m.gen
	var rc interface{ Reconnect(context.Context) error }
	if m.o.Catalog != nil {
		rc, _ = m.o.Catalog.Caller.(interface{ Reconnect(context.Context) error })
	}
	return tea.Batch(m.tick(), func() tea.Msg {
		defer cancel()
		var err error
		if rc != nil {
			err = rc.Reconnect(ctx)
		}
		r.Restart()
		return restartedMsg{gen: gen, err: err}
	})
}

func (m *model) restarted(msg restartedMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	m.busy, m.cancel = false, nil
	m.version++
	clear(m.docs)
	m.sel, m.paneTop = 0, 0
	cmd := m.showStep()
	if msg.err != nil {
		return tea.Batch(cmd, m.fail("restarted, but reconnecting failed: %v", msg.err))
	}
	return tea.Batch(cmd, m.note("restarted: n runs the first step"))
}

// edit opens the editor on the next step's arguments.
func (m *model) edit() tea.Cmd {
	if m.busy {
		return m.note("%s is running: wait before editing", m.busyLabel())
	}
	if len(m.p.Steps) == 0 || m.run.Done() {
		return m.note("no step is left to run: R restarts")
	}
	i := m.run.Cursor()
	args, src := m.run.ArgsOf(i)
	text := "{}"
	if args != nil {
		text = string(plan.Indent(args.Raw(src)))
	}
	m.editAt, m.edErr = i, ""
	m.mode = modeEdit
	m.editor.SetWidth(max(m.w-2, 10))
	m.editor.SetHeight(max(m.h-5, 3))
	m.editor.SetValue(text)
	return m.editor.Focus()
}

func (m *model) applyEdit() tea.Cmd {
	if _, err := m.dbg.SetArgs(m.editAt, []byte(m.editor.Value())); err != nil {
		m.edErr = err.Error()
		return nil
	}
	if _, err := m.run.ResolveArgs(m.editAt); err != nil && !strings.Contains(err.Error(), "which either does not exist") {
		// keep the edit, but say now what will fail
		m.edErr = ""
		m.mode = modeNormal
		m.editor.Blur()
		m.version++
		return m.fail("arguments of %s changed; they will fail: %s", m.label(m.editAt), oneLine(err.Error()))
	}
	m.mode = modeNormal
	m.editor.Blur()
	m.version++
	m.sel = m.editAt
	return tea.Batch(m.showStep(), m.note("arguments of %s changed: n runs it", m.label(m.editAt)))
}
