package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves MCP on in and out until in ends or ctx is done.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	b := newProgressBarrier()
	s.barrier = b
	stdio := server.NewStdioServer(s.mcp)
	stdio.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	t := &answerTracker{changed: make(chan struct{})}
	w := &countingWriter{w: out, b: b, t: t, idKey: s.idKey}
	g := &depthGuard{r: bufio.NewReaderSize(in, 64<<10), out: w, wire: s.wireIn, asked: t.asked,
		atEOF: func() {
			if !t.wait(ctx, endOfInputGrace) {
				s.stopAtEndOfInput()
				t.wait(ctx, endOfInputStop)
			}
		}}
	return stdio.Listen(ctx, g, w)
}

// endOfInputGrace is how long, once standard input ends, the requests
// already read have to be answered before the plans still running are
// stopped. A client closes standard input to shut the server down (MCP's
// stdio transport), so a plan must not outlive it by its step timeout; the
// grace lets `printf '...' | planctl serve`, whose input ends as soon as it
// is written, get the answers of plans that finish at once.
const endOfInputGrace = 500 * time.Millisecond

// endOfInputStop bounds the wait for the answers once the plans are
// stopped: they come at once, and a request mcp-go never answers must not
// keep the server from exiting.
const endOfInputStop = 5 * time.Second

// answerTracker lets the end of standard input wait for the answers to the
// requests read before it. The end of input reaches mcp-go only once they
// are written: mcp-go cancels the requests in flight when its input ends,
// and drops those still queued for its workers.
type answerTracker struct {
	mu       sync.Mutex
	requests int
	answers  int
	changed  chan struct{} // closed and replaced on every answer
}

// asked counts line when it is a request: an object with an id and a method.
func (t *answerTracker) asked(line []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return
	}
	t.mu.Lock()
	t.requests++
	t.mu.Unlock()
}

// answered counts msg when it is a response to a request (an id, no method).
func (t *answerTracker) answered(msg []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method != "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return
	}
	t.mu.Lock()
	t.answers++
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
}

// wait reports whether every request read has its answer, once it has,
// or after d, or when ctx is done (a signal).
func (t *answerTracker) wait(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		t.mu.Lock()
		done, ch := t.answers >= t.requests, t.changed
		t.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		case <-timer.C:
			return false
		}
	}
}

// progressBarrier keeps a plan's progress ahead of its answer. mcp-go v1.2.1
// writes notifications from a goroutine of their own: on stdio a plan's last
// notifications/progress could follow its answer (clients drop progress for
// a request already answered); over HTTP the goroutine can take the last one
// off the queue and then, finding the answer written, drop it. The handler
// waits, before answering, until every progress notification sent so far
// has been written.
type progressBarrier struct {
	mu      sync.Mutex
	sent    uint64
	written uint64
	changed chan struct{} // closed and replaced on every write
}

func newProgressBarrier() *progressBarrier {
	return &progressBarrier{changed: make(chan struct{})}
}

type barrierKey struct{}

// barrier is the progress barrier of the request in ctx (HTTP), or the
// server's (stdio), or nil.
func (s *Server) barrierFor(ctx context.Context) *progressBarrier {
	if b, ok := ctx.Value(barrierKey{}).(*progressBarrier); ok {
		return b
	}
	return s.barrier
}

func (b *progressBarrier) send() {
	b.mu.Lock()
	b.sent++
	b.mu.Unlock()
}

func (b *progressBarrier) wrote() {
	b.mu.Lock()
	b.written++
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// wait returns once every notification sent before the call is written,
// or ctx is done, or half a second has passed (a client that reads nothing must
// not hold a plan's answer forever).
func (b *progressBarrier) wait(ctx context.Context) {
	b.mu.Lock()
	target := b.sent
	b.mu.Unlock()
	timer := time.NewTimer(500 * time.Millisecond)
	defer timer.Stop()
	for {
		b.mu.Lock()
		done, ch := b.written >= target, b.changed
		b.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

// progressMark is in every progress notification and in nothing else: in a
// JSON string (a result's text) its quotes would be escaped.
var progressMark = []byte(`"method":"notifications/progress"`)

// countingWriter tells the barrier when a progress notification has been
// written. mcp-go writes one whole message (a line, or an SSE event) per
// Write.
type countingWriter struct {
	mu sync.Mutex // one message at a time (mcp-go's writes and the depth guard's)
	w  io.Writer
	b  *progressBarrier
	t  *answerTracker // nil over HTTP
	// idKey marks the ids to write back as they came (idOut).
	idKey string
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	_, err := c.w.Write(idOut(wireOut(p), c.idKey)) // isError explicit, as Concierge (wire.go)
	c.mu.Unlock()
	n := len(p)
	if err != nil {
		n = 0
	}
	if bytes.Contains(p, progressMark) {
		c.b.wrote()
	} else if c.t != nil && err == nil {
		c.t.answered(p)
	}
	return n, err
}
