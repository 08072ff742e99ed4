package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
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

type resultBoundKey struct{}

// WithResultBound gives a Caller's context the run's bound on one result
// (--max-result), so that a Caller that streams an answer can stop reading
// it once it is past the bound instead of holding it whole first. A run
// does it for each call; max <= 0 leaves ctx as it is.
func WithResultBound(ctx context.Context, max int64) context.Context {
	if max <= 0 {
		return ctx
	}
	return context.WithValue(ctx, resultBoundKey{}, max)
}

// ResultBound is the bound WithResultBound put in ctx; 0 when none.
func ResultBound(ctx context.Context) int64 {
	n, _ := ctx.Value(resultBoundKey{}).(int64)
	return n
}

// OverResult is a step's failure when tool returned a result over max
// (--max-result); returned says how much ("80 MiB", "more than 129 MiB").
func OverResult(tool, returned string, max int64) string {
	return fmt.Sprintf("tool %s returned %s, more than the limit of %s on one result (--max-result): ask the tool for less, or raise the limit",
		jsontext.Quote(tool), returned, plan.ByteSize(max))
}
