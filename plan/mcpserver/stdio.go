package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves MCP on in and out until in ends or ctx is done.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	b := newProgressBarrier()
	b.drained = func(ctx context.Context) { waitDrained(ctx, out) }
	s.barrier = b
	stdio := server.NewStdioServer(s.mcp)
	stdio.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	t := newAnswerTracker()
	t.log = s.log
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
//
// It also keeps the answer of a request the client cancelled
// (notifications/cancelled) from being written, as MCP asks: mcp-go
// cancels the handler's context but writes what it returns, and a
// client that has forgotten the id may take the answer for another
// request's, or report an unknown id.
type answerTracker struct {
	mu       sync.Mutex
	requests int
	answers  int
	changed  chan struct{} // closed and replaced on every answer
	// inFlight holds the ids (idKey) of the requests read and not yet
	// answered; cancelled those of them the client cancelled. Both hold
	// at most the requests in flight.
	inFlight  map[string]int
	cancelled map[string]bool
	early     recentIDs    // cancellations read before their requests
	done      recentIDs    // the requests answered lately
	log       *slog.Logger // nil: the requests not run are not logged
}

func newAnswerTracker() *answerTracker {
	return &answerTracker{changed: make(chan struct{}), inFlight: map[string]int{}, cancelled: map[string]bool{}}
}

// idKey is a JSON-RPC id as a map key: a string and a number that read
// alike stay apart.
func idKey(raw json.RawMessage) (string, bool) {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return "s" + v, true
	case float64:
		return "n" + strconv.FormatFloat(v, 'g', -1, 64), true
	}
	return "", false
}

// asked counts line when it is a request: an object with an id and a
// method; and marks the request a notifications/cancelled names, when it
// is in flight, or remembers it (recentIDs) when it has not come yet.
// It reports false for a request already cancelled so: it is not to be
// run.
func (t *answerTracker) asked(line []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == "" {
		return true
	}
	if len(m.ID) == 0 || string(m.ID) == "null" {
		if m.Method == string(mcp.MethodNotificationCancelled) {
			if k, ok := idKey(m.Params.RequestID); ok {
				t.mu.Lock()
				if t.inFlight[k] > 0 {
					t.cancelled[k] = true
				} else if !t.done.has(k) { // else too late: the request is answered
					t.early.add(k)
				}
				t.mu.Unlock()
			}
		}
		return true
	}
	k, ok := idKey(m.ID)
	// initialize cannot be cancelled (MCP): it is answered whatever came
	// before it.
	if ok && m.Method != string(mcp.MethodInitialize) && t.early.take(k) {
		if t.log != nil {
			t.log.Info("request not run", "reason", "the client cancelled it (notifications/cancelled) before sending it", "method", m.Method, "id", string(m.ID))
		}
		return false
	}
	t.mu.Lock()
	t.requests++
	if ok {
		t.inFlight[k]++
	}
	t.mu.Unlock()
	return true
}

// cancelledAnswer reports whether msg answers a request the client
// cancelled: it is then counted as answered, and not to be written.
func (t *answerTracker) cancelledAnswer(msg []byte) bool {
	t.mu.Lock()
	none := len(t.cancelled) == 0
	t.mu.Unlock()
	if none {
		return false
	}
	k, ok := t.answerKey(msg)
	if !ok {
		return false
	}
	t.mu.Lock()
	drop := t.cancelled[k]
	t.mu.Unlock()
	if drop {
		t.retire(k)
		t.tally()
	}
	return drop
}

// answerKey is the id of msg when it is a response (an id, no method).
func (t *answerTracker) answerKey(msg []byte) (string, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method != "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return "", false
	}
	k, ok := idKey(m.ID)
	if !ok {
		k = "?" + string(m.ID)
	}
	return k, true
}

// answering takes msg off the requests in flight when it is a response to
// a request (an id, no method), before it is written: a cancellation the
// client sends once it has read the answer is then too late, not early. It
// reports whether msg is one, for tally once it is written.
func (t *answerTracker) answering(msg []byte) bool {
	k, ok := t.answerKey(msg)
	if ok {
		t.retire(k)
	}
	return ok
}

// retire takes the request k names off the requests in flight.
func (t *answerTracker) retire(k string) {
	t.mu.Lock()
	if t.inFlight[k]--; t.inFlight[k] <= 0 {
		delete(t.inFlight, k)
		delete(t.cancelled, k)
		t.done.add(k)
	}
	t.mu.Unlock()
}

// tally counts an answer written (or dropped), for wait.
func (t *answerTracker) tally() {
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
	// drained, when set (stdio), returns once the client has read what
	// was written (waitDrained).
	drained func(context.Context)
}

// progressWait bounds how long a progress notification waits for room
// in mcp-go's queue (100 on stdio): as long as a write to a client that
// reads slowly may take over HTTP (DefaultWriteTimeout). A client that
// reads nothing cannot take the answer either.
const progressWait = DefaultWriteTimeout

// waitWrite returns once a message is written after the call, or ctx is
// done, or timer fires; it reports whether one was written.
func (b *progressBarrier) waitWrite(ctx context.Context, timer <-chan time.Time) bool {
	b.mu.Lock()
	ch := b.changed
	b.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
	case <-timer:
	}
	return false
}

// drainWait bounds waitDrained: a client that stops reading gets its
// answer behind the progress anyway.
const drainWait = 5 * time.Second

// waitDrained returns once the client has read everything written to out
// (a pipe or a socket; at once for anything else), or ctx is done, or
// drainWait has passed. The TypeScript SDK (1.32) handles a notification
// a turn of its event loop later than a response that arrived in the
// same read, and by then the answer has retired the request's progress
// handler: a plan's last progress notifications, written just before its
// answer, were lost (typescript-sdk issue 2580). An answer written once
// the client has read the rest arrives in a read of its own. No event
// says that the client read, so it asks, at growing intervals.
func waitDrained(ctx context.Context, out io.Writer) {
	for {
		u, ok := out.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		out = u.Unwrap()
	}
	n, ok := unreadBytes(out)
	if !ok || n == 0 {
		return
	}
	deadline := time.Now().Add(drainWait)
	d := 50 * time.Microsecond
	for n > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(d)
		d = min(2*d, 10*time.Millisecond)
		if n, ok = unreadBytes(out); !ok {
			return
		}
	}
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
	if b.drained != nil {
		defer b.drained(ctx)
	}
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
	if c.t != nil && c.t.cancelledAnswer(p) {
		return len(p), nil
	}
	progress := bytes.Contains(p, progressMark)
	answer := !progress && c.t != nil && c.t.answering(p)
	c.mu.Lock()
	_, err := c.w.Write(idOut(wireOut(p), c.idKey)) // isError explicit, as Concierge (wire.go)
	c.mu.Unlock()
	n := len(p)
	if err != nil {
		n = 0
	}
	if progress {
		c.b.wrote()
	} else if answer && err == nil {
		c.t.tally()
	}
	return n, err
}
