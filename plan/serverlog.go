package plan

import "time"

// ServerLog is one log message a tool source's server sent (MCP's
// notifications/message), for a debugger to show: which server, at what
// level, and what it said.
type ServerLog struct {
	Time time.Time // when planctl received it
	// Server names the source: its name among several sources, else its
	// label.
	Server string
	// Level is MCP's level as the server gave it: debug, info, notice,
	// warning, error, critical, alert or emergency.
	Level  string
	Logger string // the server's logger name, if it gave one
	// Text is the message's data: a string as it is, anything else as
	// JSON, cut to a length a person reads.
	Text string
}
