package mcpserver

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// turns lets at most n HTTP requests compute at once; the others wait for
// a turn in the order they came. Without it, every request in flight
// shares the CPU, and on a loaded server the Go scheduler serves them in
// no particular order: a few waited many times the median
// (docs/design/serve-latency.md). In arrival order, each waits about as long
// as the others.
//
// A request holds its turn only while it computes: it gives it up while
// a tool that does not answer at once runs (an upstream server, a mock
// with a delay), before the first byte of its answer is written (a client
// that reads slowly holds up nobody but itself), and at a step's end once
// it has computed for a quantum (a long plan does not hold up the short
// ones behind it). It takes a turn again, at the back of the line, when
// it has more to compute.
//
// A buffered channel is the line: the senders blocked on a full channel
// are woken first in, first out.
type turns struct {
	line    chan struct{}
	waiting atomic.Int64 // requests blocked on line
	quantum time.Duration
}

// defaultQuantum is how long a plan computes before it lets the others
// waiting go first: much longer than a small plan takes (well under a
// millisecond on mock tools), short enough that a large one does not
// hold up a line of small ones.
const defaultQuantum = 5 * time.Millisecond

func newTurns(n int) *turns {
	return &turns{line: make(chan struct{}, n), quantum: defaultQuantum}
}

// turn is one request's place: held or not.
type turn struct {
	t     *turns
	mu    sync.Mutex
	held  bool
	since time.Time
}

// requestState is what an HTTP request's context carries to the handler:
// its turn and its lease of the answer budget (HTTPOptions.MaxAnswers),
// either nil.
type requestState struct {
	turn  *turn
	lease *lease
}

type requestKey struct{}

// wait takes a turn for a request, or gives up when ctx ends first (the
// client left): then it returns nil.
func (t *turns) wait(ctx context.Context) *turn {
	select {
	case t.line <- struct{}{}:
		return &turn{t: t, held: true, since: time.Now()}
	default:
	}
	t.waiting.Add(1)
	defer t.waiting.Add(-1)
	select {
	case t.line <- struct{}{}:
		return &turn{t: t, held: true, since: time.Now()}
	case <-ctx.Done():
		return nil
	}
}

// turnFrom is the turn ctx carries, or nil.
func turnFrom(ctx context.Context) *turn {
	if rs, _ := ctx.Value(requestKey{}).(*requestState); rs != nil {
		return rs.turn
	}
	return nil
}

// leaseFrom is the lease of the answer budget ctx carries, or nil.
func leaseFrom(ctx context.Context) *lease {
	if rs, _ := ctx.Value(requestKey{}).(*requestState); rs != nil {
		return rs.lease
	}
	return nil
}

// release gives the turn up; it is safe from any goroutine, on a nil turn
// and on one already given up.
func (u *turn) release() {
	if u == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.held {
		u.held = false
		<-u.t.line
	}
}

// resume takes a turn again, at the back of the line, unless it is held.
// It does not give up on a cancelled context: the request has a result
// to compose, and every turn is given back within a quantum.
func (u *turn) resume() {
	if u == nil {
		return
	}
	u.mu.Lock()
	held := u.held
	u.mu.Unlock()
	if held {
		return
	}
	u.t.waiting.Add(1)
	u.t.line <- struct{}{} // only the request's own goroutine takes a turn
	u.t.waiting.Add(-1)
	u.mu.Lock()
	u.held = true
	u.since = time.Now()
	u.mu.Unlock()
}

// stepDone is called at the end of each step: after a quantum of
// computing, the request lets the ones waiting go first; a request whose
// turn was given up (its progress was written) takes one again.
func (u *turn) stepDone() {
	if u == nil {
		return
	}
	u.mu.Lock()
	held, since := u.held, u.since
	u.mu.Unlock()
	if held && time.Since(since) < u.t.quantum {
		return
	}
	if held && u.t.waiting.Load() == 0 {
		// Nobody waits: keep computing.
		u.mu.Lock()
		u.since = time.Now()
		u.mu.Unlock()
		return
	}
	u.release()
	u.resume()
}
