package runner

import (
	"fmt"
	"strings"
	"sync"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// DefaultServerLogLines is how many of the tool servers' log messages a
// Debugger keeps (each is cut to 1 KiB by plan/upstream): the newest, for
// the debuggers' log views; older ones are dropped.
const DefaultServerLogLines = 500

// ServerLogs keeps the newest log messages the tool servers sent, in a
// ring of a fixed number of lines, numbered from 0 in the order they came,
// and tells the drivers that subscribed when one arrives. Add may be
// called from any goroutine (an upstream server's reader).
type ServerLogs struct {
	mu    sync.Mutex
	ring  []plan.ServerLog
	start int // index in ring of the oldest line kept
	n     int // lines kept
	total int // lines ever added: the next line's number
	subs  map[int]func()
	ids   int
}

// NewServerLogs keeps up to max lines (DefaultServerLogLines when max is
// not positive).
func NewServerLogs(max int) *ServerLogs {
	if max <= 0 {
		max = DefaultServerLogLines
	}
	return &ServerLogs{ring: make([]plan.ServerLog, max), subs: map[int]func(){}}
}

// Add keeps m, dropping the oldest line when the ring is full, and
// notifies the subscribers.
func (l *ServerLogs) Add(m plan.ServerLog) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == len(l.ring) {
		l.ring[l.start] = m
		l.start = (l.start + 1) % len(l.ring)
	} else {
		l.ring[(l.start+l.n)%len(l.ring)] = m
		l.n++
	}
	l.total++
	for _, notify := range l.subs {
		notify()
	}
}

// Count is how many lines were ever added: the number the next one gets.
func (l *ServerLogs) Count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// Cap is how many lines the ring keeps.
func (l *ServerLogs) Cap() int { return len(l.ring) }

// Lines returns the lines kept, oldest first, and how many older ones
// were dropped.
func (l *ServerLogs) Lines() (lines []plan.ServerLog, dropped int) {
	lines, _, dropped = l.Since(0)
	return lines, dropped
}

// Since returns the lines kept from number from on, oldest first; next is
// the number the line after them will have (what to ask for next time),
// and missed how many lines from from on were dropped before this call
// could return them.
func (l *ServerLogs) Since(from int) (lines []plan.ServerLog, next, missed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := l.total - l.n // the number of the oldest line kept
	if from < first {
		missed, from = first-from, first
	}
	for i := from - first; i < l.n; i++ {
		lines = append(lines, l.ring[(l.start+i)%len(l.ring)])
	}
	return lines, l.total, missed
}

// TextSince is the lines from number from on (Since) as the REPL and the
// debug console print them (ServerLogLine), after a line that says how
// many were dropped before they could be read; "" when there are none.
// next is the number to ask for next time.
func (l *ServerLogs) TextSince(from int) (text string, next int) {
	lines, next, missed := l.Since(from)
	var b strings.Builder
	if missed > 0 {
		fmt.Fprintf(&b, "[log] %d server log line(s) dropped: the debugger keeps the last %d\n", missed, l.Cap())
	}
	for _, m := range lines {
		b.WriteString(ServerLogLine(m, false))
	}
	return b.String(), next
}

// ServerLogLine is one server log message as the debuggers print it: the
// server, the level and the logger in brackets, then the text; with the
// time it came when withTime. The text is the server's, with its hidden
// characters escaped and its line breaks too, so it stays one line.
func ServerLogLine(m plan.ServerLog, withTime bool) string {
	var b strings.Builder
	if withTime && !m.Time.IsZero() {
		b.WriteString(m.Time.Format("15:04:05.000 "))
	}
	b.WriteString("[log ")
	b.WriteString(jsontext.EscapeText(m.Server))
	b.WriteByte(' ')
	b.WriteString(jsontext.EscapeText(m.Level))
	if m.Logger != "" {
		b.WriteByte(' ')
		b.WriteString(jsontext.EscapeText(m.Logger))
	}
	b.WriteString("] ")
	b.WriteString(jsontext.EscapeText(m.Text))
	b.WriteByte('\n')
	return b.String()
}

// Follow calls read on a goroutine of its own after lines are added (once
// for a burst; read takes them with Since or TextSince), and first at once
// when now, for the lines kept already, until the returned stop is called.
// stop returns once read has returned for the last time. On a nil
// ServerLogs it does nothing.
func (l *ServerLogs) Follow(now bool, read func()) (stop func()) {
	if l == nil {
		return func() {}
	}
	notify, ch := Notifier()
	cancel := l.Subscribe(notify)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		if now {
			read()
		}
		for {
			select {
			case <-ch:
				read()
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

// Subscribe calls notify after every line added from now on, until cancel
// is called; the driver then reads the new lines with Since. notify runs
// on the goroutine that adds the line, with the ring locked: it must not
// block (a send on a channel with room, or a select with a default), nor
// call the ServerLogs. Once cancel has returned, notify is not called
// again.
func (l *ServerLogs) Subscribe(notify func()) (cancel func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := l.ids
	l.ids++
	l.subs[id] = notify
	return func() {
		l.mu.Lock()
		delete(l.subs, id)
		l.mu.Unlock()
	}
}

// Notifier is a notify function for Subscribe and the channel it signals:
// one pending signal at most, so a burst of lines wakes the reader once,
// and it then reads them all with Since.
func Notifier() (notify func(), ch <-chan struct{}) {
	c := make(chan struct{}, 1)
	return func() {
		select {
		case c <- struct{}{}:
		default:
		}
	}, c
}
