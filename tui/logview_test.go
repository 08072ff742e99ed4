package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// M opens the servers' log over the screen: empty, it says where lines
// come from; lines that come while it is open show at once (it follows
// the bottom), each with its time, server, level and logger, hidden
// characters escaped and cut at the width; scrolled up it stays put until
// G; esc closes it and M opens it again where it was.
func TestLogView(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	logs := tm.dbg.ServerLogs()
	at := time.Date(2026, 12, 6, 9, 30, 0, 0, time.UTC)
	// Lines not seen yet are counted on the status bar, until M.
	logs.Add(plan.ServerLog{Time: at, Server: "s", Level: "info", Text: "early"})
	logs.Add(plan.ServerLog{Time: at, Server: "s", Level: "info", Text: "early"})
	tm.Update(serverLogMsg{})
	wantView(t, tm, "M: 2 new log line(s)")
	tm.press("M")
	if tm.top() != tm.logs {
		t.Fatal("M did not open the log view")
	}
	wantView(t, tm, "Server log: 2 message(s)")
	tm.press("esc")
	if strings.Contains(tm.View(), "new log") {
		t.Errorf("the lines the view showed are still counted new:\n%s", tm.View())
	}
	tm = newTest(t, sample(t, "backup.json"), nil)
	tm.press("M")
	wantView(t, tm, "Server log: 0 message(s)", "No server has sent a log message yet")
	logs = tm.dbg.ServerLogs()
	for i := range 40 {
		logs.Add(plan.ServerLog{Time: at.Add(time.Duration(i) * time.Second), Server: "server-everything", Level: "info", Text: fmt.Sprintf("message %d", i)})
	}
	logs.Add(plan.ServerLog{Time: at, Server: "fs", Level: "error", Logger: "walker", Text: "bad\x1b[2Jpath\n" + strings.Repeat("x", 200)})
	tm.Update(serverLogMsg{})
	v := tm.View()
	wantView(t, tm, "Server log: 41 message(s)", "following", "09:30:39 server-everything info message 39", `09:30:00 fs error walker bad\u001b[2Jpath\n`)
	if strings.Contains(v, "message 0\n") || strings.Contains(v, "\x1b[2J") {
		t.Errorf("the view shows the first line, or draws a server's escape:\n%s", v)
	}
	for _, l := range strings.Split(v, "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("a line wider than the screen: %q", l)
		}
	}
	tm.press("g")
	wantView(t, tm, "lines 1-23", "message 0")
	logs.Add(plan.ServerLog{Time: at, Server: "s", Level: "info", Text: "newest"})
	tm.Update(serverLogMsg{})
	if v := tm.View(); strings.Contains(v, "newest") || !strings.Contains(v, "message 0") {
		t.Errorf("scrolled up, the view moved with a new line:\n%s", v)
	}
	tm.press("j")
	wantView(t, tm, "lines 2-24", "message 1")
	tm.press("G")
	wantView(t, tm, "following", "newest")
	tm.press("esc")
	if tm.top() != nil {
		t.Fatal("esc did not close the log view")
	}
	if strings.Contains(tm.View(), "new log") {
		t.Errorf("lines that came while the view was open are counted new:\n%s", tm.View())
	}
	tm.press("M")
	wantView(t, tm, "newest")
	tm.press("q")
	if tm.top() != nil || tm.quit {
		t.Fatal("q should close the log view, not quit")
	}
	// A key the view does not take leaves it open and changes nothing.
	tm.press("M", "n")
	if tm.top() != tm.logs || tm.run.Step(0).Status != runner.StepPending {
		t.Errorf("n in the log view ran a step or closed it")
	}
}
