package upstream

import (
	"context"
	"sync/atomic"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// callState is what the reader of a tools/call answer (limitedBody over
// HTTP, lineGuard over stdio) needs of the call it answers: its context,
// which carries the lease the answer's bytes are taken from, the most it
// may read, and a word back to Call when it stopped at --max-result.
type callState struct {
	ctx   context.Context
	bound int64 // 0: no bound but the transport's MaxMessage
	over  atomic.Int64
	stop  atomic.Value // error: the lease refused the answer's bytes
}

// stopped is the step's error when a reader stopped reading the answer:
// past --max-result, or refused by the lease.
func (cs *callState) stopped(tool string) error {
	if err := cs.overResult(tool); err != nil {
		return err
	}
	if err, ok := cs.stop.Load().(error); ok {
		return err
	}
	return nil
}

type callKey struct{}

// answerBound is the most of a tools/call answer planctl reads under a
// --max-result of maxResult: twice the result, since a server may write
// it as structuredContent and again as its text, and a MiB for the
// JSON-RPC envelope and the content items' keys.
func answerBound(maxResult int64) int64 {
	if maxResult <= 0 {
		return 0
	}
	return 2*maxResult + 1<<20
}

func withCall(ctx context.Context) (context.Context, *callState) {
	cs := &callState{ctx: ctx, bound: answerBound(runner.ResultBound(ctx))}
	return context.WithValue(ctx, callKey{}, cs), cs
}

func callFrom(ctx context.Context) *callState {
	cs, _ := ctx.Value(callKey{}).(*callState)
	return cs
}

// overResult is the step's error once a reader stopped at the bound.
func (cs *callState) overResult(tool string) error {
	n := cs.over.Load()
	if n == 0 {
		return nil
	}
	return errorString(runner.OverResult(tool, "an answer of more than "+plan.ByteSize(n), runner.ResultBound(cs.ctx)))
}

type errorString string

func (e errorString) Error() string { return string(e) }

// jsonrpcID finds the top-level "id" of the JSON object that b begins
// (possibly cut short): the raw value (a string with its quotes, or a
// number), or nil when b ends before it.
func jsonrpcID(b []byte) []byte {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipWS(b, i)
		if i >= len(b) || b[i] != '"' {
			return nil
		}
		end := skipValue(b, i)
		if end < 0 {
			return nil
		}
		key := b[i+1 : end-1]
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil
		}
		i = skipWS(b, i+1)
		end = skipValue(b, i)
		if end < 0 {
			return nil
		}
		if string(key) == "id" {
			return b[i:end]
		}
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ',' {
			return nil
		}
		i++
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipValue returns the offset just past the JSON value at b[i:], or -1
// when b ends inside it. It trusts the value to be valid JSON: lineGuard
// checks the whole line before it is handed on.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(b) {
				return -1
			}
			i++
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of a number, true, false or null
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\r', '\n', ':':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return -1
}
