package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

// statusBar is the run's status on the header line and, at the bottom,
// the message line: the last message (note or error, wrapped to at most
// maxMsgRows rows), a question, or the main keys. A message stays until a
// newer one or its timeout (clearMsg, by sequence number).
type statusBar struct {
	*common
	*runState
	msg    string
	msgErr bool
	msgSeq int
}

func newStatusBar(c *common, rs *runState) *statusBar { return &statusBar{common: c, runState: rs} }

// SetSize: the bar is as wide as the screen (common.w).
func (s *statusBar) SetSize(int, int) {}

// set shows a message and returns its sequence number, for its timeout.
// Messages quote tools and results: each line's hidden characters are
// shown as their escapes.
func (s *statusBar) set(isErr bool, text string) int {
	lines := strings.Split(text, "\n")
	for k, l := range lines {
		lines[k] = jsontext.EscapeText(l)
	}
	s.msg, s.msgErr = strings.Join(lines, "\n"), isErr
	s.msgSeq++
	return s.msgSeq
}

// Update clears the message a clearMsg names, unless a newer one replaced
// it.
func (s *statusBar) Update(msg tea.Msg) (component, tea.Cmd) {
	if msg, ok := msg.(clearMsg); ok && msg.seq == s.msgSeq {
		s.msg = ""
	}
	return s, nil
}

// maxMsgRows bounds the rows a long message takes from the panes.
const maxMsgRows = 3

// rows is how many rows the message takes: a long message (a Concierge
// error, a rerun that says where it starts) wraps rather than losing its
// end.
func (s *statusBar) rows() int {
	if s.msg == "" {
		return 1
	}
	n := strings.Count(s.wrapMsg(), "\n") + 1
	return min(n, maxMsgRows, max(s.h/4, 1))
}

func (s *statusBar) wrapMsg() string {
	return ansi.Wrap("✗ "+s.msg, s.w, " ")
}

// header is the top line: the plan, the tools, and the run's status.
func (s *statusBar) header() string {
	left := s.st.title.Render("planctl debug") + " " + s.p.Src.Name
	if c := s.dbg.Catalog(); c != nil && c.Source != "" {
		left += s.st.dim.Render(" · " + c.Source)
	}
	right := s.runStatus()
	room := s.w - ansi.StringWidth(right) - 1
	if room < 10 {
		return ansi.Truncate(right, s.w, "…")
	}
	return pad(left, room) + " " + right
}

// runStatus is the run's state in words, always on screen.
func (s *statusBar) runStatus() string {
	st := s.st
	n := len(s.p.Steps)
	if n == 0 {
		return st.err.Render("✗ no steps")
	}
	ok := s.okCount()
	var text string
	switch {
	case s.busy:
		text = st.run.Render(spin(s.frame)+" running") + " " + s.busyLabel()
		if len(s.queue) > 0 {
			text += "; queued: " + queueText(s.queue, 6)
		}
	case s.run.Status() == runner.RunCompleted:
		text = st.ok.Render("✓ completed")
	case s.run.Status() == runner.RunPartial:
		text = st.err.Render("✗ partial") + ": " + s.label(s.run.Cursor()) + " failed"
	case s.run.Cursor() == 0:
		text = "ready"
	default:
		text = "paused"
	}
	if s.rej != nil {
		text = st.err.Render("✗ rejected") + " · " + text
	}
	text = st.status.Render("status: ") + text + fmt.Sprintf(" · %d/%d ok", ok, n)
	if s.checking {
		text += " · " + st.dim.Render("checking the plan…")
	}
	if n := s.dbg.ServerLogs().Count() - s.logsSeen; n > 0 {
		text += " · " + st.hint.Render(fmt.Sprintf("M: %d new log line(s)", n))
	}
	return text
}

// okCount is the number of steps that ran ok (the run keeps it: counting
// every step at every frame made each frame cost what the plan's length does).
func (s *statusBar) okCount() int { return s.run.OKCount() }

// footer is the bottom of the screen: the path line, then the question
// when one is asked, else the message, else the main keys, in n rows at
// most.
func (s *statusBar) footer(path, question string, n int) string {
	var b strings.Builder
	b.WriteString(ansi.Truncate(path, s.w, "…"))
	b.WriteByte('\n')
	rows := strings.Split(s.message(question), "\n")
	if len(rows) > n {
		rows = rows[:n]
		rows[n-1] = strings.TrimRight(ansi.Truncate(rows[n-1], s.w-1, ""), " ") + "…"
	}
	for k, r := range rows {
		if k > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ansi.Truncate(r, s.w, "…"))
	}
	return b.String()
}

func (s *statusBar) message(question string) string {
	if question != "" {
		return question
	}
	if s.msg != "" {
		style, text := s.st.msg, ansi.Wrap(s.msg, s.w, " ")
		if s.msgErr {
			style, text = s.st.errMsg, s.wrapMsg()
		}
		lines := strings.Split(text, "\n")
		for k, l := range lines {
			lines[k] = style.Render(l)
		}
		return strings.Join(lines, "\n")
	}
	return s.st.hint.Render("n next · c continue · b break · tab pane · / search · y copy · ? help · q quit")
}
