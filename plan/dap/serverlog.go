package dap

import (
	"github.com/planctl/planctl/plan/runner"
)

// followServerLogs sends the tool servers' log messages (the Debugger's
// ServerLogs, MCP notifications/message) to the client's debug console as
// output events, each once, those kept before the launch first, until the
// returned stop is called (it returns once nothing more is sent). The
// events' category is "console": they are the servers', not the plan's.
func (s *Server) followServerLogs(logs *runner.ServerLogs) (stop func()) {
	next := 0
	return logs.Follow(true, func() {
		var text string
		if text, next = logs.TextSince(next); text != "" {
			s.output("console", text)
		}
	})
}
