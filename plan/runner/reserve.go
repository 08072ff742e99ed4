package runner

import (
	"context"
	"errors"
)

// stepLease is the lease a run hands its Caller with the step it calls for.
type stepLease struct {
	l    Lease
	step string
}

type leaseKey struct{}

// WithLease gives a Caller's context the lease its bytes are taken from
// (Reserve) for step, so that a tool's answer is counted before it is
// allocated, not once the step holds it. A run does it for each call when
// RunOptions.Lease is set; a nil l leaves ctx as it is.
func WithLease(ctx context.Context, l Lease, step string) context.Context {
	if l == nil {
		return ctx
	}
	return context.WithValue(ctx, leaseKey{}, stepLease{l, step})
}

// Reserve takes n bytes from the lease of the run that called the tool
// (RunOptions.Lease), before the Caller allocates them: a mock template's
// output, an upstream answer as it streams. It returns an error whose
// message says which bound refused them; nil when the budget has room or
// the run has no lease. What Reserve takes is given back with the rest of
// the lease, when the request's answer is written.
func Reserve(ctx context.Context, n int64) error {
	sl, ok := ctx.Value(leaseKey{}).(stepLease)
	if !ok || n <= 0 {
		return nil
	}
	if msg, ok := sl.l.Take(sl.step, n); !ok {
		return errors.New(msg)
	}
	return nil
}

// Reserving reports whether ctx carries a lease that Reserve takes from:
// a Caller measures what it is about to allocate only then.
func Reserving(ctx context.Context) bool {
	_, ok := ctx.Value(leaseKey{}).(stepLease)
	return ok
}
