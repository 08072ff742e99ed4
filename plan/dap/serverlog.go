package dap

import (
	"fmt"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

// followServerLogs sends the tool servers' log messages (the Debugger's
// ServerLogs, MCP notifications/message) to the client's debug console as
// output events, each once, those kept before the launch first, until the
// returned stop is called (it returns once nothing more is sent). The
// events' category is "console": they are the servers', not the plan's.
func (s *Server) followServerLogs(logs *runner.ServerLogs) (stop func()) {
	if logs == nil {
		return func() {}
	}
	notify, ch := runner.Notifier()
	cancel := logs.Subscribe(notify)
	done, stopped := make(chan struct{}), make(chan struct{})
	next := 0
	flush := func() {
		lines, n, missed := logs.Since(next)
		next = n
		var b strings.Builder
		if missed > 0 {
			fmt.Fprintf(&b, "[log] %d server log line(s) dropped: the debugger keeps the last %d\n", missed, logs.Cap())
		}
		for _, l := range lines {
			b.WriteString(serverLogLine(l))
		}
		if b.Len() > 0 {
			s.output("console", b.String())
		}
	}
	go func() {
		defer close(stopped)
		flush()
		for {
			select {
			case <-ch:
				flush()
			case <-done:
				return
			}
		}
	}()
	return func() {
		cancel()
		close(done)
		<-stopped
	}
}

// serverLogLine is one message as the debug console shows it, as the
// REPL prints it: [log SERVER LEVEL LOGGER] TEXT, one line.
func serverLogLine(l plan.ServerLog) string {
	head := []string{"[log", jsontext.EscapeText(l.Server), jsontext.EscapeText(l.Level)}
	if l.Logger != "" {
		head = append(head, jsontext.EscapeText(l.Logger))
	}
	return strings.Join(head, " ") + "] " + jsontext.EscapeText(l.Text) + "\n"
}
