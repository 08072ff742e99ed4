package plan

import (
	"fmt"
	"sync"
)

// AnswerBudget bounds the bytes of answer that the runs sharing it hold at
// once, counted as MaxResponse counts one run's (AnswerSize). MaxResponse
// bounds one plan; a server also needs a bound on all of them together: a
// client that sends many plans on many connections and reads none of their
// answers holds each answer until the server gives up writing it. serve
// makes one budget (--max-answers) and a Lease of it for each request.
type AnswerBudget struct {
	mu   sync.Mutex
	max  int64
	held int64
}

// NewAnswerBudget is a budget of max bytes.
func NewAnswerBudget(max int64) *AnswerBudget { return &AnswerBudget{max: max} }

// Held is the bytes its leases hold now.
func (b *AnswerBudget) Held() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

// Lease is what one request holds of a budget: its runs take from it step
// by step (RunOptions.Lease), and the server gives it all back once the
// request's answer is written, or given up. A nil Lease takes anything.
type Lease struct {
	b    *AnswerBudget
	mu   sync.Mutex
	n    int64
	done bool
}

// Lease starts a lease of b, holding nothing yet.
func (b *AnswerBudget) Lease() *Lease { return &Lease{b: b} }

// take adds n bytes to the lease, when the budget has room for them; else
// it reports the bytes held and false.
func (l *Lease) take(n int64) (held int64, ok bool) {
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

// Release gives back all the lease holds; the lease takes nothing after.
// It is safe to call more than once, and on a nil Lease.
func (l *Lease) Release() {
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

// overBudget is the step error of a step whose result's share of the
// answer the budget of all answers had no room for.
func overBudget(step string, n, held, max int64) string {
	return fmt.Sprintf("step %q stopped: with its result the answers of the plans being served would hold %s together, more than the limit of %s (--max-answers); the steps before it are kept: retry when fewer plans are running, or ask the tools for less",
		step, ByteSize(held+n), ByteSize(max))
}
