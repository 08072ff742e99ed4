package repl

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

// logPrinter prints the tool servers' log messages (the Debugger's
// ServerLogs) on the error stream, each once. At a terminal's prompt they
// are printed as they arrive, through the line editor's writer, which
// clears the line being typed, prints, and draws the prompt and the line
// again (chzyer/readline's Stdout); from a pipe, between commands, so that
// a script's output stays in its order.
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
	lines, next, missed := p.logs.Since(p.next)
	p.next = next
	if len(lines) == 0 && missed == 0 {
		return
	}
	var b strings.Builder
	if missed > 0 {
		fmt.Fprintf(&b, "[log] %d server log line(s) dropped: the debugger keeps the last %d\n", missed, p.logs.Cap())
	}
	for _, l := range lines {
		b.WriteString(serverLogLine(l, false))
	}
	io.WriteString(p.w, b.String()) // one write: one redraw of the prompt
}

// setWriter makes w where the lines go; nil holds them back.
func (p *logPrinter) setWriter(w io.Writer) {
	p.mu.Lock()
	p.w = w
	p.mu.Unlock()
}

// follow prints the lines as they arrive until the returned stop is
// called (and returns once it has).
func (p *logPrinter) follow() (stop func()) {
	if p.logs == nil {
		return func() {}
	}
	notify, ch := runner.Notifier()
	cancel := p.logs.Subscribe(notify)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-ch:
				p.flush()
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

// serverLogLine is one server log message as the REPL prints it: the
// server, the level and the logger in brackets, then the text; with the
// time it came when withTime. The text is the server's, with its hidden
// characters escaped and its line breaks too, so it stays one line.
func serverLogLine(l plan.ServerLog, withTime bool) string {
	var b strings.Builder
	if withTime && !l.Time.IsZero() {
		b.WriteString(l.Time.Format("15:04:05.000 "))
	}
	b.WriteString("[log ")
	b.WriteString(jsontext.EscapeText(l.Server))
	b.WriteByte(' ')
	b.WriteString(jsontext.EscapeText(l.Level))
	if l.Logger != "" {
		b.WriteByte(' ')
		b.WriteString(jsontext.EscapeText(l.Logger))
	}
	b.WriteString("] ")
	b.WriteString(jsontext.EscapeText(l.Text))
	b.WriteByte('\n')
	return b.String()
}

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
		io.WriteString(s.out, serverLogLine(l, true))
	}
	return nil
}
