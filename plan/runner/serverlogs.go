package runner

import (
	"sync"

	"github.com/planctl/planctl/plan"
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
