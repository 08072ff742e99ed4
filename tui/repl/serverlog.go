package repl

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

// logPrinter prints the tool servers' log messages (the Debugger's
// ServerLogs) on the error stream, each once. At a terminal's prompt they
// are printed as they arrive, through the line editor's writer, which
// prints them above the prompt and draws the prompt and the line again
// under them; from a pipe, between commands, so that a script's output
// stays in its order.
type logPrinter struct {
	logs *runner.ServerLogs
	mu   sync.Mutex
	w    io.Writer // nil while the terminal is another program's ($EDITOR)
	next int       // the number of the first line not printed yet
}

// flush prints the lines not printed yet.
func (p *logPrinter) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil || p.logs == nil {
		return
	}
	text, next := p.logs.TextSince(p.next)
	p.next = next
	if text != "" {
		io.WriteString(p.w, text) // one write: one redraw of the prompt
	}
}

// setWriter makes w where the lines go; nil holds them back.
func (p *logPrinter) setWriter(w io.Writer) {
	p.mu.Lock()
	p.w = w
	p.mu.Unlock()
}

// follow prints the lines as they arrive until the returned stop is
// called (and returns once it has).
func (p *logPrinter) follow() (stop func()) { return p.logs.Follow(false, p.flush) }

// logCommand lists the log messages the tool servers sent.
func logCommand() commandSpec {
	return commandSpec{name: "log", usage: "log [N]", max: 1,
		help: fmt.Sprintf("the tool servers' log messages (MCP notifications/message), with the time each came: the last N, or all kept (the last %d)", runner.DefaultServerLogLines),
		more: "they are printed as they arrive too, above the prompt",
		run:  cmdLog}
}

func cmdLog(s *Session, _ context.Context, c Command) error {
	lines, dropped := s.dbg.ServerLogs().Lines()
	if len(c.Args) == 1 {
		n, err := strconv.Atoi(c.Args[0])
		if err != nil || n < 1 {
			return fmt.Errorf("log %s: give a count of lines, e.g. log 20", jsontext.EscapeText(c.Args[0]))
		}
		if n < len(lines) {
			dropped += len(lines) - n
			lines = lines[len(lines)-n:]
		}
	}
	if len(lines) == 0 {
		fmt.Fprintln(s.out, "no server has sent a log message")
		return nil
	}
	if dropped > 0 {
		fmt.Fprintf(s.out, "(%d earlier line(s) not shown)\n", dropped)
	}
	for _, l := range lines {
		io.WriteString(s.out, runner.ServerLogLine(l, true))
	}
	return nil
}
