package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxConns bounds the connections open at once. Each is one file
// descriptor and, while its headers are read, up to MaxHeaderBytes of
// memory: 1,024 of them stay well under the descriptor limits of most
// systems (planctl serve lowers it to fit, docs/serve.md) and take tens
// of megabytes at most.
const DefaultMaxConns = 1024

// MaxHeaderBytes bounds a request's header lines: Node's default
// (--max-http-header-size), so every MCP client that works with a
// TypeScript SDK server fits; a bearer token, a session id and a
// client's few headers take well under a kilobyte. Each connection
// reading its headers holds about three times the bytes read (the parsed
// map, its buffers), and --max-conns of them may be at it at once.
// net/http's default is 1 MiB, which let a stranger make the server hold
// megabytes per connection.
const MaxHeaderBytes = 16 << 10

// LingerTimeout bounds how long a refused request's connection is kept
// to discard what the client still sends: a client that writes its whole
// body before reading (Python's httpx does) then reads the refusal
// instead of a reset.
const LingerTimeout = 2 * time.Second

// connKey holds a request's connection in its context (ConnContext).
type connKey struct{}

// conns caps the open connections of an http.Server. At the cap, a new
// connection makes the oldest one not yet past its first headers or not
// authenticated close, else the oldest idle one; a request that passed
// the checks is never cut. When every connection serves such a request, the new one is
// answered 503 and closed. netutil.LimitListener stops accepting at its
// cap instead, which would let strangers that send nothing hold every
// slot and keep a client with the token waiting in the listen queue; and
// a listener cannot see whether a connection is idle or authenticated,
// which only the server's ConnState and the handler know.
type conns struct {
	max  int
	log  *slog.Logger
	mu   sync.Mutex
	open map[net.Conn]*connInfo
	seq  uint64 // orders the state changes
	shed atomic.Int64
	// lastLog throttles the line that says connections are shed.
	lastLog time.Time
}

type connInfo struct {
	since  uint64 // when it entered its state (conns.seq)
	state  http.ConnState
	authed bool // its current request passed the Origin, Host and token checks
}

func newConns(max int, log *slog.Logger) *conns {
	return &conns{max: max, log: log, open: map[net.Conn]*connInfo{}}
}

// install hooks c into srv, keeping srv's own ConnState and ConnContext.
func (c *conns) install(srv *http.Server) {
	prevState, prevCtx := srv.ConnState, srv.ConnContext
	srv.ConnState = func(nc net.Conn, st http.ConnState) {
		c.state(nc, st)
		if prevState != nil {
			prevState(nc, st)
		}
	}
	srv.ConnContext = func(ctx context.Context, nc net.Conn) context.Context {
		if prevCtx != nil {
			ctx = prevCtx(ctx, nc)
		}
		return context.WithValue(ctx, connKey{}, nc)
	}
}

func (c *conns) state(nc net.Conn, st http.ConnState) {
	now := time.Now()
	c.mu.Lock()
	c.seq++
	switch st {
	case http.StateNew:
		c.open[nc] = &connInfo{since: c.seq, state: st}
		if len(c.open) <= c.max {
			c.mu.Unlock()
			return
		}
		victim := c.oldestSheddable() // nc itself when every other one is authenticated
		delete(c.open, victim)
		n := c.shed.Add(1)
		logNow := now.Sub(c.lastLog) >= time.Second
		if logNow {
			c.lastLog = now
		}
		c.mu.Unlock()
		if logNow {
			c.log.Warn("connections shed", "reason", "--max-conns reached: the oldest idle or unauthenticated connection is closed", "max_conns", c.max, "shed_total", n)
		}
		if victim == nc {
			busy(nc, c.max)
			return
		}
		victim.Close()
		return
	case http.StateActive, http.StateIdle:
		if ci := c.open[nc]; ci != nil {
			ci.since, ci.state, ci.authed = c.seq, st, false
		}
	case http.StateHijacked, http.StateClosed:
		delete(c.open, nc)
	}
	c.mu.Unlock()
}

// oldestSheddable is the connection that has been reading its first
// request's headers or unauthenticated the longest, else the one idle the
// longest; nil when every open one serves an authenticated request. A
// refused request's connection is closed, so an idle one belongs to a
// client whose last request passed the checks: strangers go first. c.mu
// is held.
func (c *conns) oldestSheddable() net.Conn {
	var victim net.Conn
	var since uint64
	victimIdle := false
	for nc, ci := range c.open {
		if ci.state == http.StateActive && ci.authed {
			continue
		}
		idle := ci.state == http.StateIdle
		if victim == nil || (victimIdle && !idle) || (idle == victimIdle && ci.since < since) {
			victim, since, victimIdle = nc, ci.since, idle
		}
	}
	return victim
}

// authenticated marks r's connection as serving a request that passed
// the checks, so that it is not shed until the request ends.
func (c *conns) authenticated(r *http.Request) {
	nc, _ := r.Context().Value(connKey{}).(net.Conn)
	if nc == nil {
		return
	}
	c.mu.Lock()
	if ci := c.open[nc]; ci != nil {
		ci.authed = true
	}
	c.mu.Unlock()
}

// lingering counts nc again once net/http gave it up (refuse): answered,
// it is the first to shed.
func (c *conns) lingering(nc net.Conn) {
	c.mu.Lock()
	c.open[nc] = &connInfo{since: 0, state: http.StateNew}
	c.mu.Unlock()
}

// forget drops nc, closed.
func (c *conns) forget(nc net.Conn) {
	c.mu.Lock()
	delete(c.open, nc)
	c.mu.Unlock()
}

// count is the number of connections open.
func (c *conns) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open)
}

// busy answers a new connection 503 and closes it: every other one
// serves a request that passed the checks. Its send buffer is empty, so
// the write does not wait; the deadline is for the unexpected.
func busy(nc net.Conn, max int) {
	msg := fmt.Sprintf("Service Unavailable: %d connections are serving requests already (--max-conns); retry in a moment\n", max)
	nc.SetWriteDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(nc, "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(msg), msg)
	nc.Close()
}
