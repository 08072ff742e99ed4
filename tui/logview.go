package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// logView shows the tool servers' log messages (MCP notifications/message,
// the Debugger's ServerLogs) over the screen, newest at the bottom. It
// follows the new lines while it is scrolled to the bottom; scrolled up, it
// stays where it is. esc, q or the key that opened it close it.
type logView struct {
	*common
	logs   *runner.ServerLogs
	top    int  // the first line shown, when not following
	follow bool // the last page is shown, and new lines scroll in
}

func newLogView(c *common, logs *runner.ServerLogs) *logView {
	return &logView{common: c, logs: logs, follow: true}
}

// serverLogMsg says that a server sent log messages since the last one.
type serverLogMsg struct{}

// waitServerLog returns a serverLogMsg once ch is signalled (the
// ServerLogs' subscription), or nothing once ctx is done; the root issues
// it again after each.
func waitServerLog(ctx context.Context, ch <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-ch:
			return serverLogMsg{}
		case <-ctx.Done():
			return nil
		}
	}
}

// Init: nothing to start.
func (v *logView) Init() tea.Cmd { return nil }

// SetSize: the view draws on the whole screen (common.w, common.h).
func (v *logView) SetSize(int, int) {}

// ShortHelp: the keys that scroll it.
func (v *logView) ShortHelp() []key.Binding {
	return []key.Binding{v.keys.Down, v.keys.Up, v.keys.PageDown, v.keys.PageUp, v.keys.Top, v.keys.Bottom}
}

// rows is how many lines of the log the screen shows under the title.
func (v *logView) rows() int { return max(v.h-1, 1) }

// Update scrolls; esc, q and the log key close the view.
func (v *logView) Update(msg tea.Msg) (component, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return v, nil
	}
	lines, _ := v.logs.Lines()
	last := max(len(lines)-v.rows(), 0) // the top of the last page
	if v.follow {
		v.top = last
	}
	ks := v.keys
	switch {
	case k.String() == "esc" || k.String() == "q" || key.Matches(k, ks.ServerLog):
		return nil, nil
	case key.Matches(k, ks.Down):
		v.top++
	case key.Matches(k, ks.Up):
		v.top--
	case key.Matches(k, ks.PageDown):
		v.top += v.rows() - 1
	case key.Matches(k, ks.PageUp):
		v.top -= v.rows() - 1
	case key.Matches(k, ks.Top):
		v.top = 0
	case key.Matches(k, ks.Bottom):
		v.top = last
	}
	v.top = min(max(v.top, 0), last)
	v.follow = v.top == last
	return v, nil
}

// View is the title, then a page of lines: the time each came, the server,
// the level (coloured from warning up) and the logger, and the text, cut
// at the screen's width.
func (v *logView) View() string {
	lines, dropped := v.logs.Lines()
	last := max(len(lines)-v.rows(), 0)
	top := min(v.top, last)
	if v.follow {
		top = last
	}
	title := fmt.Sprintf("Server log: %d message(s)", len(lines))
	if dropped > 0 {
		title += fmt.Sprintf(", the last %d kept", v.logs.Cap())
	}
	where := "following"
	if !v.follow {
		where = fmt.Sprintf("lines %d-%d", top+1, min(top+v.rows(), len(lines)))
	}
	var b strings.Builder
	b.WriteString(ansi.Truncate(v.st.title.Render(title)+v.st.dim.Render("  ("+where+" · j/k scroll · G follow · esc closes)"), v.w, "…"))
	if len(lines) == 0 {
		b.WriteString("\n" + v.st.dim.Render("No server has sent a log message yet (MCP notifications/message); they show here as they come."))
		return b.String()
	}
	for i := top; i < len(lines) && i < top+v.rows(); i++ {
		b.WriteByte('\n')
		b.WriteString(ansi.Truncate(v.line(lines[i]), v.w, "…"))
	}
	return b.String()
}

// line is one message, its server's words escaped.
func (v *logView) line(l plan.ServerLog) string {
	level := sanitizeText(l.Level)
	switch l.Level {
	case "warning":
		level = v.st.warn.Render(level)
	case "error", "critical", "alert", "emergency":
		level = v.st.err.Render(level)
	}
	s := v.st.dim.Render(l.Time.Format("15:04:05")) + " " + sanitizeText(l.Server) + " " + level
	if l.Logger != "" {
		s += " " + v.st.dim.Render(sanitizeText(l.Logger))
	}
	return s + " " + sanitizeText(l.Text)
}
