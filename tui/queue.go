package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// The key queue. Only one command drives the run at a time, so the keys
// that drive it (n, c, R, ctrl+r and their F-key aliases) typed while a step
// runs wait here and run in order when it ends: `tmux send-keys nnn` runs
// three steps. Every other key acts at once: moving, folding, searching,
// copying, b, ? and q (which asks first), and x, which cancels the running
// step and drops the queue. A failing step drops the queue too, so that
// keys typed for a run that went well do not run on after a failure.

// maxQueue bounds the queue: a key held down must not pile up work.
const maxQueue = 64

// queued is one stepping key waiting for the running step to end.
type queued struct {
	k   tea.KeyMsg
	sel int // the selected step when the key was typed (what ctrl+r re-runs)
}

func (m *model) enqueue(k tea.KeyMsg) tea.Cmd {
	if len(m.queue) >= maxQueue {
		return m.fail("%d keys are already queued: this one is dropped (x cancels the step and the queue)", maxQueue)
	}
	m.queue = append(m.queue, queued{k: k, sel: m.sel})
	return nil
}

// dropQueue empties the queue and returns what it held, as typed.
func (m *model) dropQueue() string {
	s := queueText(m.queue, len(m.queue))
	m.queue = nil
	return s
}

// queueText names the first n queued keys, as typed ("n n c").
func queueText(queue []queued, n int) string {
	var b strings.Builder
	for i, q := range queue {
		if i == n {
			b.WriteString(" +" + strconv.Itoa(len(queue)-n) + " more")
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(q.k.String())
	}
	return b.String()
}

// runQueue runs queued keys until one starts a command (the rest wait for
// it) or none is left.
func (m *model) runQueue() tea.Cmd {
	var cmds []tea.Cmd
	for len(m.queue) > 0 && !m.busy {
		q := m.queue[0]
		m.queue = m.queue[1:]
		ks := m.keys
		switch {
		case key.Matches(q.k, ks.Next):
			cmds = append(cmds, m.stepRun(false))
		case key.Matches(q.k, ks.Continue):
			cmds = append(cmds, m.stepRun(true))
		case key.Matches(q.k, ks.Restart):
			cmds = append(cmds, m.confirmRerun("restart", 0, m.restart))
		case key.Matches(q.k, ks.Rerun):
			sel := q.sel
			if sel < 0 || sel >= len(m.p.Steps) {
				break
			}
			cmds = append(cmds, m.confirmRerun("rerun "+m.label(sel), sel, func() tea.Cmd { return m.rerun(sel) }))
		}
		if m.top() != nil {
			break // a question waits for its answer; the rest of the queue stays
		}
	}
	if len(m.queue) == 0 {
		m.queue = nil
	}
	return tea.Batch(cmds...)
}
