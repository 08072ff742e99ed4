package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/planctl/planctl/plan/mcpserver/internal/pywire"
)

// ServeStdio serves MCP on in and out until in ends or ctx is done. The
// transport is planctl's: it reads each line, answers what Concierge's
// wire answers otherwise (wire.go), hands the rest to mcp-go's MCPServer
// through its public entry point (HandleMessage) in a session of its own,
// and writes every answer with pywire, its id as the request wrote it.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	sess := &stdioSession{notes: make(chan mcp.JSONRPCNotification, 64)}
	if err := s.mcp.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("registering the stdio session: %w", err)
	}
	defer s.mcp.UnregisterSession(context.WithoutCancel(ctx), sess.SessionID())
	t := newAnswerTracker(s.idKey)
	t.log = s.log
	w := &countingWriter{w: out, t: t}
	ctx = s.mcp.WithContext(ctx, sess)
	// Every request's notifications are written by its handler, before
	// its answer (notifier).
	ctx = context.WithValue(ctx, callKey{}, notifier(stdioNotifier{w: w, out: out}))
	rctx, cancelRequests := context.WithCancel(ctx)
	defer cancelRequests()
	c := &stdioConn{s: s, w: w, t: t, calls: make(chan struct{}, stdioCallsAtOnce), held: make(chan struct{}, stdioRequestsHeld)}
	go c.forward(rctx, sess.notes)
	type read struct {
		line []byte
		err  error
	}
	lines := make(chan read)
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			select {
			case lines <- read{line, err}:
			case <-rctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	var err error
	for done := false; !done; {
		select {
		case <-ctx.Done():
			err, done = ctx.Err(), true
		case l := <-lines:
			if len(bytes.TrimSpace(l.line)) > 0 {
				c.serve(rctx, l.line)
			}
			if l.err == io.EOF {
				// The client shut the server down: the answers to what
				// was read come first, then the plans still running stop.
				if !t.wait(ctx, endOfInputGrace) {
					s.stopAtEndOfInput()
					t.wait(ctx, endOfInputStop)
				}
			} else if l.err != nil {
				err = fmt.Errorf("reading standard input: %w", l.err)
			}
			done = l.err != nil
		}
	}
	cancelRequests()
	c.wg.Wait()
	return err
}

// stdioCallsAtOnce bounds the tools/call requests a stdio client has
// served at once; the others wait for a place, in no set order.
const stdioCallsAtOnce = 8

// stdioRequestsHeld bounds the requests read and not yet answered: past
// it, reading waits, so that a client that sends without reading holds
// the memory of that many requests at most.
const stdioRequestsHeld = 1024

// stdioConn is one stdio client: its output and its requests in flight.
type stdioConn struct {
	s     *Server
	w     *countingWriter
	t     *answerTracker
	calls chan struct{} // a place for each tools/call served at once
	held  chan struct{} // a place for each request read and not answered
	wg    sync.WaitGroup
}

// serve answers one line: a reply of the wire's own, or mcp-go's answer
// to what it passes on. A request is served on a goroutine of its own,
// so that a plan does not hold up the lines after it (a cancellation
// among them).
func (c *stdioConn) serve(ctx context.Context, line []byte) {
	if tooDeep(line, MaxRequestDepth) {
		c.w.Write(parseErrorLine(depthMessage))
		return
	}
	if !c.t.asked(line) {
		return // cancelled before it came: neither run nor answered
	}
	pass, reply := c.s.wireIn(line)
	if reply != nil {
		c.w.Write(reply) // its id as the request wrote it (idIn)
		return
	}
	init := c.s.conciergeInit(line)
	id := requestID(line)
	if b := bytes.TrimSpace(pass); id == nil && (len(b) == 0 || b[0] != '{' || !json.Valid(b)) {
		c.w.Write(parseErrorLine("Parse error: each line must be one whole JSON-RPC message, a JSON object (a batch, an array of them, is not taken)"))
		return
	}
	if id == nil {
		// A notification (a cancellation among them), or a response
		// (of which mcp-go asks for none): nothing to answer, in the
		// main.
		if msg := c.s.mcp.HandleMessage(ctx, pass); msg != nil {
			c.w.Write(stdioAnswer([]byte("null"), msg))
		}
		return
	}
	c.held <- struct{}{}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() { <-c.held }()
		if ms, me, ok := topMember(line, "method"); ok && string(line[ms:me]) == `"tools/call"` {
			select {
			case c.calls <- struct{}{}:
				defer func() { <-c.calls }()
			case <-ctx.Done():
			}
		}
		if msg := c.s.mcp.HandleMessage(ctx, pass); init != nil && initSucceeded(msg) {
			c.w.Write(init)
		} else if msg != nil {
			c.w.Write(stdioAnswer(id, msg))
		}
	}()
}

// requestID is the id of the request line, as written, or nil when line
// is not a request (no id, a null one, or not a JSON object) or its id is
// not JSON.
func requestID(line []byte) []byte {
	if _, _, ok := topMember(line, "method"); !ok {
		return nil
	}
	is, ie, ok := topMember(line, "id")
	if !ok || string(line[is:ie]) == "null" || !validID(line[is:ie]) {
		return nil
	}
	return line[is:ie]
}

// stdioAnswer is mcp-go's answer msg to the request whose id is id (as
// the request wrote it), as the Python SDK writes it. An id that is not a
// string or a number (JSON-RPC allows no other) is written as mcp-go
// decoded it.
func stdioAnswer(id []byte, msg mcp.JSONRPCMessage) []byte {
	if len(id) == 0 || id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') {
		b, err := json.Marshal(msg)
		if err != nil {
			return nil
		}
		return pywire.Message(nil, append(b, '\n'))
	}
	var key string
	var body any
	switch m := msg.(type) {
	case mcp.JSONRPCResponse:
		if res, ok := toolResult(m.Result); ok {
			if text, ok := plainText(res); ok {
				if sc, ok := res.StructuredContent.(json.RawMessage); ok || res.StructuredContent == nil {
					return pywire.ToolResponse(nil, id, text, sc, res.IsError)
				}
			}
		}
		key, body = "result", m.Result
	case *mcp.JSONRPCResponse:
		return stdioAnswer(id, *m)
	case mcp.JSONRPCError:
		key, body = "error", m.Error
	case *mcp.JSONRPCError:
		return stdioAnswer(id, *m)
	default:
		return stdioAnswer(nil, msg)
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil
	}
	env := make([]byte, 0, len(b)+len(id)+32)
	env = append(env, `{"jsonrpc":"2.0","id":`...)
	env = append(env, id...)
	env = append(env, `,"`+key+`":`...)
	env = append(env, b...)
	return pywire.Message(nil, append(env, "}\n"...))
}

// toolResult is result when it is a tools/call result.
func toolResult(result any) (*mcp.CallToolResult, bool) {
	switch r := result.(type) {
	case *mcp.CallToolResult:
		return r, r != nil
	case mcp.CallToolResult:
		return &r, true
	}
	return nil, false
}

// forward writes the notifications mcp-go sends the session (none of
// execute_plan's own: those are written by their request, notifier).
func (c *stdioConn) forward(ctx context.Context, notes <-chan mcp.JSONRPCNotification) {
	for {
		select {
		case n := <-notes:
			if b, err := json.Marshal(n); err == nil {
				c.w.Write(pywire.Message(nil, append(b, '\n')))
			}
		case <-ctx.Done():
			return
		}
	}
}

// stdioSession is the one session of a stdio client, for mcp-go.
type stdioSession struct {
	notes       chan mcp.JSONRPCNotification
	initialized atomic.Bool
	level       atomic.Value // mcp.LoggingLevel
}

// SessionID names the session in the log lines.
func (s *stdioSession) SessionID() string { return "stdio" }

// NotificationChannel is where mcp-go sends the session's notifications.
func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notes }

// Initialize marks the session initialized.
func (s *stdioSession) Initialize() { s.initialized.Store(true) }

// Initialized reports whether initialize succeeded.
func (s *stdioSession) Initialized() bool { return s.initialized.Load() }

// SetLogLevel keeps the level the client set (logging/setLevel).
func (s *stdioSession) SetLogLevel(level mcp.LoggingLevel) { s.level.Store(level) }

// GetLogLevel is the level the client set, or error.
func (s *stdioSession) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.level.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}

// endOfInputGrace is how long, once standard input ends, the requests
// already read have to be answered before the plans still running are
// stopped. A client closes standard input to shut the server down (MCP's
// stdio transport), so a plan must not outlive it by its step timeout; the
// grace lets `printf '...' | planctl serve`, whose input ends as soon as it
// is written, get the answers of plans that finish at once.
const endOfInputGrace = 500 * time.Millisecond

// endOfInputStop bounds the wait for the answers once the plans are
// stopped: they come at once, and a request that is never answered must
// not keep the server from exiting.
const endOfInputStop = 5 * time.Second

// answerTracker lets the end of standard input wait for the answers to the
// requests read before it.
//
// It also keeps the answer of a request the client cancelled
// (notifications/cancelled) from being written, as MCP asks: mcp-go
// cancels the handler's context, the handler still returns an answer,
// and a client that has forgotten the id may take it for another
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
	idMark    string       // the server's idKey (idIn)
	early     recentIDs    // cancellations read before their requests
	done      recentIDs    // the requests answered lately
	log       *slog.Logger // nil: the requests not run are not logged
}

func newAnswerTracker(idMark string) *answerTracker {
	return &answerTracker{changed: make(chan struct{}), inFlight: map[string]int{}, cancelled: map[string]bool{}, idMark: idMark}
}

// idKey is a JSON-RPC id as a map key: a string and a number that read
// alike stay apart. The tracker sees a request as it came and its answer
// as mcp-go wrote it, where an integer id past a double's exact range
// travels as a string marked by the server's idMark (idIn): both are keyed
// by the integer's digits.
func (t *answerTracker) idKey(raw json.RawMessage) (string, bool) {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		if lit, ok := strings.CutPrefix(v, t.idMark); ok && t.idMark != "" {
			return "n" + lit, true
		}
		return "s" + v, true
	case float64:
		if lit := string(bytes.TrimSpace(raw)); len(strings.TrimPrefix(lit, "-")) > 15 && strings.Trim(lit, "-0123456789") == "" {
			return "n" + lit, true
		}
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
			if k, ok := t.idKey(m.Params.RequestID); ok {
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
	k, ok := t.idKey(m.ID)
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
	k, ok := t.idKey(m.ID)
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

// stdioNotifier writes a request's notifications to standard output
// itself, each a whole line under the writer's lock, so that they come
// before the request's answer.
type stdioNotifier struct {
	w   *countingWriter
	out io.Writer // standard output itself, for waitDrained
}

func (n stdioNotifier) notify(method string, params any) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("encoding %s: %w", method, err)
	}
	if _, err := n.w.Write(pywire.Message(nil, append(b, '\n'))); err != nil {
		return fmt.Errorf("writing %s: %w", method, err)
	}
	return nil
}

func (n stdioNotifier) flushed(ctx context.Context) { waitDrained(ctx, n.out) }

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

// countingWriter writes standard output, one whole message (a line, as
// pywire wrote it) per Write, and counts the answers for the
// answerTracker.
type countingWriter struct {
	mu sync.Mutex // one message at a time
	w  io.Writer
	t  *answerTracker
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.t != nil && c.t.cancelledAnswer(p) {
		return len(p), nil
	}
	answer := c.t != nil && c.t.answering(p)
	c.mu.Lock()
	_, err := c.w.Write(p)
	c.mu.Unlock()
	n := len(p)
	if err != nil {
		n = 0
	}
	if answer && err == nil {
		c.t.tally()
	}
	return n, err
}
