package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/planctl/planctl/plan/runner"
)

// Endpoint is the path of the Streamable HTTP endpoint.
const Endpoint = "/mcp"

// DefaultMaxBody bounds an HTTP request body.
const DefaultMaxBody = 4 << 20

// HTTPOptions configure the Streamable HTTP handler.
type HTTPOptions struct {
	// Stateless serves every request on its own, with no session: any
	// replica behind a load balancer can answer any request.
	Stateless bool
	// AllowOrigins are the browser origins accepted besides loopback ones
	// (scheme://host[:port], or "*" for any). CORS preflights from them
	// are answered.
	AllowOrigins []string
	// AllowHosts, when set, are the only Host names (no port) a request
	// may carry, besides loopback ones; "*" accepts any. Set it when
	// serving beyond loopback: it is the DNS rebinding check there.
	AllowHosts []string
	// AuthToken, when set, is required as "Authorization: Bearer <token>".
	AuthToken string
	// MaxBody bounds a request body in bytes; 0: DefaultMaxBody.
	MaxBody int64
	// MaxInFlight bounds the requests served at once; one more is
	// refused with 503 and Retry-After. 0: DefaultMaxInFlight.
	MaxInFlight int
	// MaxRunning bounds the requests that compute at once; the others
	// wait for a turn in the order they came (turns.go). 0: GOMAXPROCS,
	// the CPUs Go uses; negative: no bound, every request in flight
	// shares the CPU.
	MaxRunning int
	// MaxSessions bounds the live sessions of stateful HTTP; an
	// initialize past it is refused with 503. 0: DefaultMaxSessions.
	MaxSessions int
	// MaxClientSessions bounds the live sessions opened from one address
	// (clientOf): an initialize past it ends that client's least recently
	// used session, and one past MaxSessions ends the least recently used
	// of the client that holds the most, so that no client locks the
	// others out. 0: DefaultMaxClientSessions.
	MaxClientSessions int
	// MaxConns bounds the connections open at once; past it the oldest
	// idle or unauthenticated one is closed (conns.go). 0:
	// DefaultMaxConns; negative: no bound.
	MaxConns int
	// SessionIdleTimeout ends a session no request has used for this long,
	// so that clients that vanish without ending their session (DELETE)
	// leave nothing behind; 0: sessions live until ended.
	SessionIdleTimeout time.Duration
	// BodyTimeout bounds the reading of a request body; 0: DefaultBodyTimeout.
	BodyTimeout time.Duration
	// WriteTimeout bounds each write of an answer: a client that reads
	// nothing for this long is dropped, and what its answer held is freed.
	// 0: DefaultWriteTimeout.
	WriteTimeout time.Duration
	// MaxAnswers bounds the bytes of answer (runner.AnswerSize) that the
	// requests being served hold together, from the step that makes them
	// until the answer is written (answerBudget): the step that would
	// cross it fails with a message that says so. 0: DefaultMaxAnswers;
	// negative: no bound.
	MaxAnswers int64
}

// DefaultMaxAnswers bounds the answers held at once: eight of
// runner.DefaultMaxResponse (64 of DefaultMaxResponse), where a served plan's answer is a few
// kilobytes. Without it, clients that read none of their answers could
// make a server hold --max-inflight of the largest answers (16 GiB, and
// twice that or more in memory) until --write-timeout.
const DefaultMaxAnswers = 512 << 20

// DefaultMaxInFlight bounds the HTTP requests served at once: past it a
// flood is refused at once and cheaply instead of queuing plans (each
// holds its body, its run and perhaps an upstream call) without bound.
const DefaultMaxInFlight = 256

// DefaultMaxSessions bounds live sessions: each holds mcp-go's state for
// it plus the client's metadata (at most MaxInitializeBody).
const DefaultMaxSessions = 1000

// DefaultMaxClientSessions bounds the sessions of one client: as many as
// --max-inflight's default serves at once, so a client that opens more
// cannot be using them all.
const DefaultMaxClientSessions = 256

// MaxInitializeBody bounds an initialize request: the clientInfo and
// capabilities it carries are kept for the session's life.
const MaxInitializeBody = 32 << 10

// DefaultBodyTimeout bounds the reading of an authenticated request's
// body. The body is read before the request takes one of --max-inflight's
// slots, so slow senders hold no slot, and their connection not for
// longer than this. An unauthenticated request's body is not read.
const DefaultBodyTimeout = 30 * time.Second

// DefaultWriteTimeout bounds each write of an answer to a client.
const DefaultWriteTimeout = 30 * time.Second

// DefaultSessionIdleTimeout is how long serve keeps an unused session.
const DefaultSessionIdleTimeout = time.Hour

// HTTP is the Streamable HTTP transport at Endpoint, behind planctl's
// checks: Origin (403), Host (403), bearer token (401), body size (413),
// session ids (400, 404), sessions and requests at once (503), DNS
// rebinding on loopback (403, hostAllowed). Shutdown ends its
// sessions and the http.Server it is given.
type HTTP struct {
	opts       HTTPOptions
	log        *slog.Logger
	streamable *server.StreamableHTTPServer
	tokenSum   [32]byte
	inFlight   chan struct{}
	turns      *turns        // nil: no bound on the requests computing at once
	answers    *answerBudget // nil: no bound on the answers held at once
	srv        *Server
	direct     bool // a plain execute_plan call is answered without mcp-go (direct.go)
	// directServed counts the requests the direct path answered.
	directServed atomic.Int64
	// paramHeaders: execute_plan's inputSchema binds parameters to
	// headers (x-mcp-header), which the direct path does not check.
	paramHeaders bool
	ids          *sessionIDs
	conns        *conns     // nil: no bound on the connections open at once
	initMu       sync.Mutex // one initialize at a time: the session cap and a failed initialize's cleanup need it
	calls        calls      // requests in flight within sessions (callstream.go)
}

// withDefaults is o with every bound left at zero given its default.
func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxClientSessions <= 0 {
		o.MaxClientSessions = DefaultMaxClientSessions
	}
	if o.MaxConns == 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.MaxRunning == 0 {
		o.MaxRunning = runtime.GOMAXPROCS(0)
	}
	return o
}

// NewHTTP builds the HTTP transport of s, to be served by srv (its Handler
// is set).
func (s *Server) NewHTTP(srv *http.Server, opts HTTPOptions) *HTTP {
	opts = opts.withDefaults()
	h := &HTTP{opts: opts, log: s.log, inFlight: make(chan struct{}, opts.MaxInFlight), srv: s, direct: opts.Stateless}
	switch {
	case opts.MaxAnswers == 0:
		h.answers = newAnswerBudget(DefaultMaxAnswers)
	case opts.MaxAnswers > 0:
		h.answers = newAnswerBudget(opts.MaxAnswers)
	}
	if opts.MaxRunning > 0 {
		h.turns = newTurns(opts.MaxRunning)
	}
	boundServer(srv)
	if opts.MaxConns > 0 {
		h.conns = newConns(opts.MaxConns, s.log)
		h.conns.install(srv)
	}
	if opts.AuthToken != "" {
		h.tokenSum = sha256.Sum256([]byte(opts.AuthToken))
	}
	sopts := []server.StreamableHTTPOption{
		server.WithEndpointPath(Endpoint),
		server.WithStreamableHTTPServer(srv),
		server.WithStreamableHTTPLogger(s.log),
		// No standalone GET stream: execute_plan's only notifications are
		// its own progress, which belong on the call's stream. With a GET
		// stream open, mcp-go hands a session's notifications to whichever
		// stream reads first, and progress could leave the call's stream.
		server.WithDisableStreaming(true),
	}
	if len(opts.AllowOrigins) > 0 {
		// mcp-go answers the preflight; the guard lets only allowed
		// origins reach it.
		sopts = append(sopts, server.WithStreamableHTTPCORS(
			server.WithCORSAllowedOrigins(opts.AllowOrigins...),
			server.WithCORSAllowedHeaders("Content-Type", "Authorization", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID", "Accept"),
			server.WithCORSExposedHeaders("Mcp-Session-Id", "WWW-Authenticate"),
			server.WithCORSMaxAge(600)))
	}
	// The guard checks Host (hostAllowed), with --allow-host's names
	// when given: a proxy on this machine passes the public name along.
	sopts = append(sopts, server.WithDisableLocalhostProtection(true))
	if opts.Stateless {
		sopts = append(sopts, server.WithStateLess(true))
	} else {
		h.ids = &sessionIDs{live: map[string]*sessionInfo{}}
		s.onInitialized(h.ids.confirm)
		sopts = append(sopts, server.WithSessionIdManager(h.ids))
		if opts.SessionIdleTimeout > 0 {
			sopts = append(sopts, server.WithSessionIdleTTL(opts.SessionIdleTimeout))
		}
	}
	h.streamable = server.NewStreamableHTTPServer(s.mcp, sopts...)
	if t := s.mcp.GetTool(ToolName); t == nil || len(mcp.ExtractParamHeaderBindings(&t.Tool)) > 0 {
		h.paramHeaders = true
	}
	mux := http.NewServeMux()
	mux.Handle(Endpoint, h.guard(h.streamable))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.refuse(w, r, http.StatusNotFound, fmt.Sprintf("Not Found: planctl serves MCP at %s only", Endpoint))
	}))
	srv.Handler = h.logged(mux)
	return h
}

// boundServer gives every state of a connection a deadline: its headers
// (new or after a request) ReadHeaderTimeout, an authenticated body
// BodyTimeout, a refused one LingerTimeout, an idle one IdleTimeout, each
// write WriteTimeout; and bounds its header lines. What srv sets already
// stands.
func boundServer(srv *http.Server) {
	if srv.ReadHeaderTimeout <= 0 {
		srv.ReadHeaderTimeout = 10 * time.Second
	}
	if srv.IdleTimeout <= 0 {
		srv.IdleTimeout = 2 * time.Minute
	}
	if srv.MaxHeaderBytes <= 0 {
		srv.MaxHeaderBytes = MaxHeaderBytes
	}
}

// Streamable is mcp-go's handler, for Shutdown.
func (h *HTTP) Streamable() *server.StreamableHTTPServer { return h.streamable }

// Conns is the number of connections open (0 when they are not counted).
func (h *HTTP) Conns() int {
	if h.conns == nil {
		return 0
	}
	return h.conns.count()
}

// Sessions is the number of live sessions (0 when stateless).
func (h *HTTP) Sessions() int {
	if h.ids == nil {
		return 0
	}
	return h.ids.count()
}

// message is what the guard reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta      *mcp.Meta       `json:"_meta"`
		RequestID json.RawMessage `json:"requestId"` // notifications/cancelled
	} `json:"params"`
}

// guard applies the Origin, Host, token, size, session and concurrency
// checks before mcp-go sees the request, each step answering the request
// itself when it stops it. The body is read before a slot of
// --max-inflight is taken, within BodyTimeout.
func (h *HTTP) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.doorChecks(w, r) {
			return
		}
		if r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && len(h.opts.AllowOrigins) > 0 {
			// A CORS preflight carries no credentials: mcp-go answers it.
			next.ServeHTTP(w, r)
			return
		}
		if !h.tokenCheck(w, r) {
			return
		}
		g := &guarded{}
		defer func() { g.lease.Release() }()
		if r.Body != nil && r.Method == http.MethodPost && (!h.readBody(w, r, g) || !h.wireBody(w, r, g)) {
			return
		}
		if !h.sessionChecks(w, r, &g.msg, g.body) || !h.conciergeEdges(w, r, g) {
			return
		}
		if sid := r.Header.Get(server.HeaderKeySessionID); h.ids != nil && sid != "" {
			defer h.ids.use(sid)()
		}
		select {
		case h.inFlight <- struct{}{}:
			defer func() { <-h.inFlight }()
		default:
			w.Header().Set("Retry-After", "1")
			http.Error(w, fmt.Sprintf("Service Unavailable: %d requests are being served already (--max-inflight); retry in a moment", h.opts.MaxInFlight), http.StatusServiceUnavailable)
			return
		}
		if g.init != nil {
			iw := &initWriter{ResponseWriter: w, answer: g.init}
			defer iw.done()
			w = iw
		}
		if h.ids != nil && g.msg.Method == string(mcp.MethodInitialize) && !h.modern(r, &g.msg) {
			h.initialize(next, w, r)
			return
		}
		r, u := h.takeTurn(r, g)
		defer u.release()
		if r == nil {
			return // the client left while it waited
		}
		if g.call != nil {
			h.serveDirect(w, r, g.call, u)
			return
		}
		h.dispatch(next, w, r, g, u)
	})
}

// guarded is what the guard learns of a request on its way to mcp-go.
type guarded struct {
	msg   message
	body  []byte      // as mcp-go is to read it (wireIn)
	id    []byte      // the request's id as it came, when idIn marked it in body; nil otherwise
	call  *directCall // a plain execute_plan call, for the direct path
	lease *lease      // the request's share of --max-answers; nil: no budget, or nothing taken yet
	init  []byte      // a Concierge server's answer to an initialize (conciergeInit)
}

// doorChecks refuses, before anything is read, a foreign Origin or Host,
// and a body on a request that has none to give.
func (h *HTTP) doorChecks(w http.ResponseWriter, r *http.Request) bool {
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin) {
		h.refuse(w, r, http.StatusForbidden, fmt.Sprintf("Forbidden: origin %q is not allowed; start planctl serve with --allow-origin %s to accept it", origin, origin))
		return false
	}
	if !h.hostAllowed(r) {
		h.refuse(w, r, http.StatusForbidden, fmt.Sprintf("Forbidden: Host %q is not one this server answers to; start planctl serve with --allow-host NAME to accept it", r.Host))
		return false
	}
	if r.Method != http.MethodPost && r.ContentLength != 0 {
		// Not read below: refused, so that it is not left for
		// net/http to read without a deadline.
		h.refuse(w, r, http.StatusBadRequest, fmt.Sprintf("Bad Request: a %s request carries no body", r.Method))
		return false
	}
	return true
}

// tokenCheck refuses a request without the bearer token, when one is
// required, and tells the connection bound (conns) that it has one.
func (h *HTTP) tokenCheck(w http.ResponseWriter, r *http.Request) bool {
	if h.opts.AuthToken != "" && !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="planctl"`)
		h.refuse(w, r, http.StatusUnauthorized, "Unauthorized: send the token given to planctl serve as 'Authorization: Bearer <token>'")
		return false
	}
	if h.conns != nil {
		h.conns.authenticated(r)
	}
	return true
}

// readBody reads a POST's body into g within BodyTimeout, refusing it past
// --max-body (413) or when the budget of all answers has no room for it
// (503). The body and what is decoded from it are taken from the budget
// before they are read: many large plans at once are refused at the door,
// not once the server holds them.
func (h *HTTP) readBody(w http.ResponseWriter, r *http.Request, g *guarded) bool {
	if r.ContentLength > h.opts.MaxBody {
		h.tooLarge(w, r, r.ContentLength)
		return false
	}
	g.lease = h.answers.newLease()
	if r.ContentLength > 0 && g.lease != nil && !g.lease.admit(r.ContentLength) {
		h.busy(w, r, r.ContentLength)
		return false
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout))
	var in io.Reader = io.LimitReader(r.Body, h.opts.MaxBody+1)
	if r.ContentLength < 0 && g.lease != nil {
		in = &admitReader{r: in, l: g.lease}
	}
	body, err := io.ReadAll(in)
	rc.SetReadDeadline(time.Time{})
	if errors.Is(err, errNoRoom) {
		h.busy(w, r, int64(len(body)))
		return false
	}
	if err != nil {
		h.refuse(w, r, http.StatusBadRequest, fmt.Sprintf("cannot read the request body (it must arrive within %s): %v", h.opts.BodyTimeout, err))
		return false
	}
	if int64(len(body)) > h.opts.MaxBody {
		h.tooLarge(w, r, -1)
		return false
	}
	g.body = body
	return true
}

// wireBody answers what the wire answers itself (too deep, wireParse's
// replies), and otherwise leaves in g the body mcp-go is to read and the
// message it holds, or the direct path's call.
func (h *HTTP) wireBody(w http.ResponseWriter, r *http.Request, g *guarded) bool {
	if tooDeep(g.body, MaxRequestDepth) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(parseErrorLine(depthMessage))
		return false
	}
	body, id := h.srv.idIn(g.body)
	g.id = id
	pass, reply, root, src := h.srv.wireParse(body, id)
	if reply != nil {
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply)
		return false
	}
	g.body = pass
	if g.call = h.directOf(r, src, root); g.call != nil {
		g.msg.Method = string(mcp.MethodToolsCall)
		return true
	}
	r.ContentLength = int64(len(g.body))
	json.Unmarshal(g.body, &g.msg) // a batch or bad JSON leaves msg empty: mcp-go answers it
	r.Body = io.NopCloser(bytes.NewReader(g.body))
	return true
}

// conciergeEdges, under --concierge-wire, answers the protocol edges
// where Concierge's server answers otherwise than mcp-go (httpEdge), and
// keeps in g the answer a Concierge server gives an initialize.
func (h *HTTP) conciergeEdges(w http.ResponseWriter, r *http.Request, g *guarded) bool {
	if g.call != nil || len(g.body) == 0 || !h.srv.opts.ConciergeWire || h.modern(r, &g.msg) {
		return true
	}
	g.init = h.srv.conciergeInit(g.body)
	pass, reply := h.srv.httpEdge(g.body, g.id)
	if reply != nil {
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply)
		return false
	}
	if pass != nil {
		g.body = pass
		r.ContentLength = int64(len(g.body))
		r.Body = io.NopCloser(bytes.NewReader(g.body))
	}
	return true
}

// takeTurn waits for the request's turn to compute (--max-running) and
// gives the request its turn and its lease of the answer budget, which is
// given back once the answer is written, or given up (the client left,
// --write-timeout). It returns a nil request when the client left while
// it waited.
func (h *HTTP) takeTurn(r *http.Request, g *guarded) (*http.Request, *turn) {
	if h.turns == nil && h.answers == nil {
		return r, nil
	}
	rs := &requestState{}
	if h.turns != nil {
		if rs.turn = h.turns.wait(r.Context()); rs.turn == nil {
			return nil, nil
		}
	}
	if h.answers != nil {
		if g.lease == nil {
			g.lease = h.answers.newLease()
		}
		rs.lease = g.lease
	}
	return r.WithContext(context.WithValue(r.Context(), requestKey{}, rs)), rs.turn // one copy of the request for both
}

// dispatch hands the request to mcp-go, its answer written as the Python
// SDK writes it (pyWriter). A tools/call gets a stream of its own for its
// progress (callWriter), tied, within a session, to its id, so that a
// notifications/cancelled (marked before mcp-go cancels the handler)
// keeps its answer from being written.
func (h *HTTP) dispatch(next http.Handler, w http.ResponseWriter, r *http.Request, g *guarded, u *turn) {
	var out http.ResponseWriter = pyWriter{w, u, g.lease}
	sid := r.Header.Get(server.HeaderKeySessionID)
	inSession := h.ids != nil && sid != "" && !h.modern(r, &g.msg)
	switch {
	case inSession && g.msg.Method == string(mcp.MethodNotificationCancelled):
		h.calls.cancel(callID(sid, g.msg.Params.RequestID))
	case g.msg.Method == string(mcp.MethodToolsCall) && len(g.msg.ID) > 0:
		cw := &callWriter{ResponseWriter: out}
		if inSession {
			release, ok := h.calls.add(callID(sid, g.msg.ID), cw)
			defer release()
			if !ok {
				h.log.Info("request not run", "reason", "the client cancelled it (notifications/cancelled) before sending it", "id", string(g.msg.ID))
				cw.cancel()
				cw.WriteHeader(http.StatusOK) // an SSE stream closed with no event, as for a request cancelled while it runs
				return
			}
		}
		out = cw
		r = r.WithContext(context.WithValue(r.Context(), callKey{}, notifier(cw)))
	}
	next.ServeHTTP(out, r)
}

// modern reports whether a request is of protocol 2026-07-28 or later,
// which has no sessions, as mcp-go decides it.
func (h *HTTP) modern(r *http.Request, msg *message) bool {
	return mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) || mcp.IsModernProtocol(msg.Params.Meta.ProtocolVersion())
}

// sessionChecks answers what mcp-go would let through or answer wrongly:
// a session id the server did not issue, whatever the protocol version
// (404); a missing one (400); an initialize past --max-sessions (503) or
// too large to keep (400); a cancellation that is not tied to a session
// (dropped: with no session, a request id is all it could name, and any
// client could stop another's plan).
func (h *HTTP) sessionChecks(w http.ResponseWriter, r *http.Request, msg *message, body []byte) bool {
	sid := r.Header.Get(server.HeaderKeySessionID)
	modern := h.modern(r, msg)
	if msg.Method == string(mcp.MethodNotificationCancelled) && (h.ids == nil || modern || sid == "") {
		h.log.Info("cancellation ignored", "reason", "not tied to a session: close the connection to cancel a request")
		w.WriteHeader(http.StatusAccepted)
		return false
	}
	if h.ids == nil {
		return true
	}
	if sid != "" && !h.ids.valid(sid) {
		http.Error(w, "Not Found: unknown or ended session (Mcp-Session-Id): initialize a new one", http.StatusNotFound)
		return false
	}
	isInit := msg.Method == string(mcp.MethodInitialize)
	switch {
	case r.Method == http.MethodDelete && sid == "":
		http.Error(w, "Bad Request: DELETE ends a session: send its Mcp-Session-Id", http.StatusBadRequest)
		return false
	case r.Method == http.MethodPost && !modern && !isInit && sid == "" && msg.Method != "":
		http.Error(w, "Bad Request: missing Mcp-Session-Id: send the id initialize gave, or initialize first", http.StatusBadRequest)
		return false
	case isInit && !modern && len(body) > MaxInitializeBody:
		http.Error(w, fmt.Sprintf("Bad Request: the initialize request is %d bytes, over the %d this server keeps for a session's client metadata (clientInfo, capabilities)", len(body), MaxInitializeBody), http.StatusBadRequest)
		return false
	}
	return true
}

// initialize serves an initialize request, one at a time: past
// --max-sessions it is refused, and a session whose initialize failed is
// ended at once.
func (h *HTTP) initialize(next http.Handler, w http.ResponseWriter, r *http.Request) {
	h.initMu.Lock()
	defer h.initMu.Unlock()
	client := clientOf(r)
	if id, full := h.ids.evictable(client, h.opts.MaxClientSessions, h.opts.MaxSessions); full {
		if id == "" {
			w.Header().Set("Retry-After", "10")
			http.Error(w, fmt.Sprintf("Service Unavailable: %d sessions are open and each is serving a request (--max-sessions %d, --max-client-sessions %d); retry in a moment", h.ids.count(), h.opts.MaxSessions, h.opts.MaxClientSessions), http.StatusServiceUnavailable)
			return
		}
		h.endSession(r, id)
		h.log.Info("session ended", "reason", "--max-client-sessions or --max-sessions reached: its client's least recently used session made room for a new one")
	}
	h.ids.mu.Lock()
	h.ids.next = client
	h.ids.mu.Unlock()
	next.ServeHTTP(w, r)
	for _, id := range h.ids.unconfirmed() {
		h.endSession(r, id)
		h.log.Info("session ended", "reason", "initialize failed")
	}
}

// endSession ends session id as a DELETE would: mcp-go keeps state for
// it too.
func (h *HTTP) endSession(r *http.Request, id string) {
	del, _ := http.NewRequestWithContext(context.WithoutCancel(r.Context()), http.MethodDelete, Endpoint, nil)
	del.Host = r.Host
	del.Header.Set(server.HeaderKeySessionID, id)
	h.streamable.ServeHTTP(discardWriter{}, del)
}

// discardWriter is an http.ResponseWriter that keeps nothing.
type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (discardWriter) WriteHeader(int)             {}

// hostAllowed checks Host against AllowHosts, when set; otherwise, on a
// loopback listener, it takes only loopback names: a web page whose name
// an attacker points at 127.0.0.1 (DNS rebinding) would otherwise drive
// the victim's local server from the browser.
func (h *HTTP) hostAllowed(r *http.Request) bool {
	host := hostOf(r.Host)
	if IsLoopbackHost(host) {
		return true
	}
	if len(h.opts.AllowHosts) == 0 {
		la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		return !ok || la == nil || !IsLoopbackHost(hostOf(la.String()))
	}
	for _, a := range h.opts.AllowHosts {
		if a == "*" || strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// tooLarge answers a body over --max-body, in the words of the other
// limits (plan.ByteSize): how large it is, when its Content-Length said
// so (n >= 0; a body sent without one is read no further than the
// limit), the limit and the flag that raises it.
func (h *HTTP) tooLarge(w http.ResponseWriter, r *http.Request, n int64) {
	size := "more than"
	if n >= 0 {
		size = runner.ByteSize(n) + ", more than"
	}
	h.refuseWithin(w, r, h.opts.BodyTimeout, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request Entity Too Large: the body is %s the limit of %s: send a smaller plan or raise --max-body", size, runner.ByteSize(h.opts.MaxBody)))
}

// busy answers a request whose body of n bytes the budget of all answers
// (--max-answers) has no room for now.
func (h *HTTP) busy(w http.ResponseWriter, r *http.Request, n int64) {
	w.Header().Set("Retry-After", "1")
	h.refuseWithin(w, r, h.opts.BodyTimeout, http.StatusServiceUnavailable, fmt.Sprintf("Service Unavailable: a request of %s would take the memory held by the plans being served past the limit of %s (--max-answers); retry in a moment, send a smaller plan, or raise --max-answers",
		runner.ByteSize(n), runner.ByteSize(h.answers.max)))
}

// refuse answers a request that will not be served, at once, before
// reading its body, and closes the connection after it. When a body may
// follow, the connection is taken from net/http (which would read up to
// 256 KiB of it before answering and again before closing, with no
// deadline: a partial body held the connection, and its headers, forever)
// and closed by linger.
func (h *HTTP) refuse(w http.ResponseWriter, r *http.Request, code int, msg string) {
	h.refuseWithin(w, r, LingerTimeout, code, msg)
}

// refuseWithin is refuse for a client that may take up to within to
// finish sending its body: an authenticated one is given BodyTimeout, as
// its body would have been had it been read, so that a client on a slow
// or busy link finishing a large body still reads the answer.
func (h *HTTP) refuseWithin(w http.ResponseWriter, r *http.Request, within time.Duration, code int, msg string) {
	body := msg + "\n"
	hd := w.Header()
	hd.Set("Connection", "close")
	hd.Set("Content-Type", "text/plain; charset=utf-8")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Length", strconv.Itoa(len(body))) // whole before the connection is taken
	w.WriteHeader(code)
	io.WriteString(w, body)
	if r.ContentLength == 0 {
		return // no body: net/http closes the connection after the answer
	}
	rc := http.NewResponseController(w)
	rc.Flush()
	nc, brw, err := rc.Hijack()
	if err != nil {
		// Not HTTP/1 over a connection of its own: bound net/http's
		// own reading of the body instead.
		rc.SetReadDeadline(time.Now().Add(within))
		return
	}
	if h.conns != nil {
		h.conns.lingering(nc)
	}
	limit := 2 * h.opts.MaxBody
	if r.ContentLength > limit {
		// A client that writes the whole body it declared before reading
		// (Python's httpx) must be able to finish its write: cut short,
		// it sees a broken pipe, not the answer.
		limit = min(r.ContentLength, max(limit, MaxLingerBytes))
	}
	go h.linger(nc, brw.Reader, limit, within)
}

// MaxLingerBytes bounds what a refused request's connection discards of
// the body its client declared (Content-Length) beyond twice MaxBody:
// a plan that large is a mistake a client should hear about, and what
// the server spends on it is bounded by LingerTimeout anyway.
const MaxLingerBytes = 64 << 20

// linger closes a refused request's connection: its half first, so the
// client sees the end of the answer, then it discards what the client
// still sends, at most limit bytes within the time given, then closes the
// rest. A client that writes its whole body before reading (Python's
// httpx does) so reads the refusal instead of a reset; a stranger's
// partial body holds a small goroutine and a descriptor LingerTimeout at
// most, and is shed first past MaxConns. The request and its headers are
// freed as the handler returns.
func (h *HTTP) linger(nc net.Conn, br *bufio.Reader, limit int64, within time.Duration) {
	defer nc.Close()
	if h.conns != nil {
		defer h.conns.forget(nc)
	}
	if cw, ok := nc.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	nc.SetReadDeadline(time.Now().Add(within))
	io.CopyN(io.Discard, br, limit)
}

// clientOf is who opened a session, for MaxClientSessions: the address
// it came from (behind a proxy, the proxy's; every client on this
// machine is one).
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// authorized compares the bearer token in constant time (of hashes, so the
// token's length does not show either).
func (h *HTTP) authorized(r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(sum[:], h.tokenSum[:]) == 1
}

// originAllowed accepts loopback origins and those given in AllowOrigins.
func (h *HTTP) originAllowed(origin string) bool {
	for _, a := range h.opts.AllowOrigins {
		if a == "*" || strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return IsLoopbackHost(u.Hostname())
}

// hostOf is the host of host[:port].
func hostOf(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// IsLoopbackHost reports whether host (no port) names the local machine.
func IsLoopbackHost(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// statusWriter records the status and size of an answer, passing Flush
// through so streamed (SSE) answers still stream.
type statusWriter struct {
	http.ResponseWriter
	status  int
	bytes   int64
	timeout time.Duration // each write's deadline from now
	// idKey marks the ids to write back as they came (idOut): every
	// message the server writes passes here whole, whichever path made it.
	idKey string
}

// writePiece is how much of an answer one write deadline covers.
const writePiece = 256 << 10

// deadline gives the next write WriteTimeout: a client that stops reading
// is dropped instead of holding its answer in memory.
func (w *statusWriter) deadline() {
	http.NewResponseController(w.ResponseWriter).SetWriteDeadline(time.Now().Add(w.timeout))
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	given := len(b)
	b = idOut(b, w.idKey)
	// In pieces, each with its own deadline: a slow reader that keeps
	// reading gets a large answer whole; one that stops is dropped.
	n := 0
	var err error
	for len(b[n:]) > 0 && err == nil {
		piece := b[n:min(len(b), n+writePiece)]
		w.deadline()
		var m int
		m, err = w.ResponseWriter.Write(piece)
		n += m
	}
	w.bytes += int64(n)
	if err == nil {
		n = given // all of it, whatever idOut made of the id
	}
	return n, err
}

func (w *statusWriter) Flush() {
	w.deadline()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logged writes one line per HTTP request: never a header's value, never
// the body.
func (h *HTTP) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, timeout: h.opts.WriteTimeout, idKey: h.srv.idKey}
		sw.deadline() // also for what net/http writes after the handler
		next.ServeHTTP(sw, r)
		sw.deadline()
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		h.log.Info("http", "method", r.Method, "path", r.URL.Path, "status", sw.status,
			"bytes", sw.bytes, "remote", r.RemoteAddr, "duration", time.Since(start))
	})
}

// WriteHeader answers a JSON-RPC error 200, not the 404 mcp-go gives
// method-not-found on protocol 2026-07-28: mcp-go's own client (1.2.1)
// and others read any 404 on a POST as the end of their session, and
// drop it. The body, the JSON-RPC error, says what went wrong. Other
// 404s (an unknown session, another path) are plain text and pass.
func (w pyWriter) WriteHeader(code int) {
	if code == http.StatusNotFound && strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		code = http.StatusOK
	}
	w.ResponseWriter.WriteHeader(code)
}
