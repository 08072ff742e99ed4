package upstream

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// limitBodies bounds the body of each answer to a POST (a request's answer,
// JSON or its stream of events) to max bytes (Config.MaxMessage): past
// them the read fails with a message that names the bound, and mcp-go's
// client makes that the call's error. Other requests (a GET's long-lived
// stream) are not bounded: their bytes add up over a session.
type limitBodies struct {
	base http.RoundTripper
	max  int64
}

func (l limitBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && resp.Body != nil {
		b := &limitedBody{rc: resp.Body, left: l.max, max: l.max, ctx: req.Context()}
		if cs := callFrom(req.Context()); cs != nil && cs.bound > 0 && (l.max <= 0 || cs.bound < l.max) {
			b.left, b.max, b.cs = cs.bound, cs.bound, cs
		}
		resp.Body = b
	}
	return resp, err
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
	max  int64
	// ctx is the call's: a served plan's lease (runner.Reserve) takes the
	// answer's bytes as they arrive, so the answers of all calls at once
	// are bounded together, not only one message.
	ctx    context.Context
	refuse error
	// cs is set when the call's --max-result (answerBound) is tighter
	// than max: past it the step fails with --max-result's words.
	cs *callState
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.over()
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	if b.refuse != nil {
		return 0, b.refuse
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), b.over() // the bytes past the bound are not handed on
	}
	if n > 0 && b.ctx != nil {
		if rerr := runner.Reserve(b.ctx, answerShare*int64(n)); rerr != nil {
			b.refuse = fmt.Errorf("planctl stopped reading the upstream server's answer: %w", rerr)
			return 0, b.refuse
		}
	}
	return n, err
}

// answerShare is how many times its size an upstream answer takes while it
// is read: the bytes read, and the result mcp-go decodes from them.
const answerShare = 2

func (b *limitedBody) over() error {
	if b.cs != nil {
		b.cs.over.Store(b.max)
		return fmt.Errorf("planctl stopped reading the upstream server's answer past %s, the most a result under --max-result takes", plan.ByteSize(b.max))
	}
	return fmt.Errorf("the upstream server's answer is more than %s, planctl's bound on one message from an MCP server; planctl stopped reading it: ask the tool for less", plan.ByteSize(b.max))
}

func (b *limitedBody) Close() error { return b.rc.Close() }
