package mcpserver

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

// answerBudget bounds the bytes of answer that the runs sharing it hold at
// once, counted as MaxResponse counts one run's (AnswerSize). MaxResponse
// bounds one plan; a server also needs a bound on all of them together: a
// client that sends many plans on many connections and reads none of their
// answers holds each answer until the server gives up writing it. serve
// makes one budget (--max-answers) and a lease of it for each request.
type answerBudget struct {
	mu   sync.Mutex
	max  int64
	held int64
}

// newAnswerBudget is a budget of max bytes.
func newAnswerBudget(max int64) *answerBudget { return &answerBudget{max: max} }

// Held is the bytes its leases hold now.
func (b *answerBudget) Held() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

// lease is what one request holds of a budget: its runs take from it step
// by step (runner.RunOptions.Lease), and the server gives it all back once the
// request's answer is written, or given up. A nil lease takes anything.
type lease struct {
	b    *answerBudget
	mu   sync.Mutex
	n    int64
	done bool
}

// newLease starts a lease of b, holding nothing yet; nil when b is nil.
func (b *answerBudget) newLease() *lease {
	if b == nil {
		return nil
	}
	return &lease{b: b}
}

// bodyShare is how many times its size a request body takes while it is
// served: the bytes read, the tree the wire parses of them, and the plan's
// values decoded from it.
const bodyShare = 3

// admit takes a request body's share (bodyShare times its n bytes) before
// it is read; false when the budget has no room for it.
func (l *lease) admit(n int64) bool {
	_, ok := l.take(bodyShare * n)
	return ok
}

// errNoRoom is admitReader's error when the budget has no room for more.
var errNoRoom = errors.New("no room in the budget of all answers (--max-answers)")

// admitReader takes a body of unknown length (chunked) from a lease as it
// arrives, failing with errNoRoom once the budget has no room for more.
type admitReader struct {
	r io.Reader
	l *lease
}

func (a *admitReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if n > 0 && !a.l.admit(int64(n)) {
		return n, errNoRoom
	}
	return n, err
}

// take adds n bytes to the lease, when the budget has room for them; else
// it reports the bytes held and false.
func (l *lease) take(n int64) (held int64, ok bool) {
	if l == nil {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	if l.done || l.b.held+n > l.b.max {
		return l.b.held, false
	}
	l.b.held += n
	l.n += n
	return l.b.held, true
}

// give gives back n bytes the lease took for a while (a copy written and
// dropped); after Release, which gave back everything, it does nothing.
func (l *lease) give(n int64) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return
	}
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	l.b.held -= n
	l.n -= n
}

// Take takes n bytes for step's result (runner.Lease): when the budget
// has no room for them, it reports false and the step's error.
func (l *lease) Take(step string, n int64) (string, bool) {
	held, ok := l.take(n)
	if !ok {
		return overBudget(step, n, held, l.b.max), false
	}
	return "", true
}

// Release gives back all the lease holds; the lease takes nothing after.
// It is safe to call more than once, and on a nil lease.
func (l *lease) Release() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	l.b.held -= l.n
	l.n, l.done = 0, true
}

// overBudget is the step error of a step whose next n bytes (its
// arguments, its tool's answer, its result's share of the answer) the
// budget of all answers had no room for.
func overBudget(step string, n, held, max int64) string {
	return fmt.Sprintf("step %s stopped: with the %s it needs next (its arguments, its tool's answer or its share of the plan's answer) the plans being served would hold %s together, more than the limit of %s (--max-answers); the steps before it are kept: retry when fewer plans are running, or ask the tools for less",
		jsontext.Quote(step), runner.ByteSize(n), runner.ByteSize(held+n), runner.ByteSize(max))
}
