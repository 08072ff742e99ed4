package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// callWriter is the stream of one tools/call over HTTP. The plan's
// progress is written here, on its own request's stream, before the
// handler returns (the answer comes after every one): mcp-go v1.2.1 sends
// a session's notifications through one queue that every open request of
// the session reads, and a request that has just been answered can take
// a notification off it and drop it. Within a session, once the client
// cancels the request nothing more is written: the stream closes without
// an answer, as MCP asks (mcp-go writes the answer of a cancelled
// request).
type callWriter struct {
	http.ResponseWriter
	mu        sync.Mutex
	sse       bool // the answer is a stream of server-sent events
	wrap      bool // mcp-go answers in JSON on a stream already in SSE: its body becomes an event
	cancelled bool
}

// notifier writes a request's notifications on the request's own stream,
// before its answer: over HTTP its callWriter, over stdio standard output
// (stdioNotifier). mcp-go's own way (SendNotificationToClient) queues
// them for a goroutine of its own, which can write one after the answer
// or drop it.
type notifier interface {
	notify(method string, params any) error
	// flushed returns once the client has read what was written, where
	// that can be known and matters (stdio, waitDrained).
	flushed(ctx context.Context)
}

type callKey struct{}

// callFrom is the request stream ctx carries, or nil.
func callFrom(ctx interface{ Value(any) any }) notifier {
	c, _ := ctx.Value(callKey{}).(notifier)
	return c
}

// flushed: an HTTP client reads the answer's events in order.
func (w *callWriter) flushed(context.Context) {}

func (w *callWriter) upgrade() {
	h := w.ResponseWriter.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.ResponseWriter.WriteHeader(http.StatusOK)
	w.sse = true
}

// notify writes a notification on the request's stream and flushes it;
// after a cancellation it writes nothing.
func (w *callWriter) notify(method string, params any) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("encoding %s: %w", method, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancelled {
		return nil
	}
	if !w.sse {
		w.upgrade()
	}
	if _, err := fmt.Fprintf(w.ResponseWriter, "event: message\ndata: %s\n\n", b); err != nil {
		return fmt.Errorf("writing %s: %w", method, err)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// cancel stops every write to come: the client has cancelled the request.
func (w *callWriter) cancel() {
	w.mu.Lock()
	w.cancelled = true
	w.mu.Unlock()
}

func (w *callWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sse {
		// The status is out already; mcp-go's JSON answer becomes an event.
		w.wrap = !strings.HasPrefix(w.ResponseWriter.Header().Get("Content-Type"), "text/event-stream") || w.wrap
		return
	}
	if w.cancelled {
		// An SSE stream closed with no event: no answer, and no body a
		// client would try to read as one.
		w.upgrade()
		return
	}
	if strings.HasPrefix(w.ResponseWriter.Header().Get("Content-Type"), "text/event-stream") {
		w.sse = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *callWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancelled {
		return len(b), nil
	}
	if !w.wrap {
		return w.ResponseWriter.Write(b)
	}
	ev := make([]byte, 0, len(b)+24)
	ev = append(ev, "event: message\ndata: "...)
	ev = append(ev, bytes.TrimRight(b, "\r\n")...)
	ev = append(ev, "\n\n"...)
	if _, err := w.ResponseWriter.Write(ev); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Flush passes on to the connection, for server-sent events.
func (w *callWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the connection's writer.
func (w *callWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// calls are the requests in flight within sessions, by session id and
// request id, for notifications/cancelled to find; and the cancellations
// that came before their requests.
type calls struct {
	mu    sync.Mutex
	m     map[string]*callWriter
	early recentIDs // cancellations that came before their requests
	done  recentIDs // the requests answered lately
}

func callID(sid string, id json.RawMessage) string {
	return sid + "\x00" + string(bytes.TrimSpace(id))
}

// add registers the request key names, unless the client cancelled it
// before sending it: then ok is false and it is not to be run.
func (c *calls) add(key string, w *callWriter) (release func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.early.take(key) {
		return func() {}, false
	}
	if c.m == nil {
		c.m = map[string]*callWriter{}
	}
	if _, dup := c.m[key]; dup {
		return func() {}, true // a second request with an id in use: cancellation finds the first
	}
	c.m[key] = w
	return func() {
		c.mu.Lock()
		delete(c.m, key)
		c.done.add(key)
		c.mu.Unlock()
	}, true
}

// cancel marks the request key names cancelled, if it is in flight, or
// remembers the cancellation for the request to find when it comes.
func (c *calls) cancel(key string) {
	c.mu.Lock()
	w := c.m[key]
	if w == nil && !c.done.has(key) { // else too late: the request is answered
		c.early.add(key)
	}
	c.mu.Unlock()
	if w != nil {
		w.cancel()
	}
}
