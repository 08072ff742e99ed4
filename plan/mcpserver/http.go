package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
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
	// (scheme://host[:port], or "*" for any).
	AllowOrigins []string
	// AuthToken, when set, is required as "Authorization: Bearer <token>".
	AuthToken string
	// MaxBody bounds a request body in bytes; 0: DefaultMaxBody.
	MaxBody int64
	// MaxInFlight bounds the requests served at once; one more is
	// refused with 503 and Retry-After. 0: DefaultMaxInFlight.
	MaxInFlight int
	// SessionIdleTimeout ends a session no request has used for this long,
	// so that clients that vanish without ending their session (DELETE)
	// leave nothing behind; 0: sessions live until ended.
	SessionIdleTimeout time.Duration
}

// DefaultMaxInFlight bounds the HTTP requests served at once: past it a
// flood is refused at once and cheaply instead of queuing plans (each
// holds its body, its run and perhaps an upstream call) without bound.
const DefaultMaxInFlight = 256

// DefaultSessionIdleTimeout is how long serve keeps an unused session.
const DefaultSessionIdleTimeout = time.Hour

// HTTP is the Streamable HTTP transport at Endpoint, behind planctl's
// checks: Origin (403), bearer token (401), body size (413). DNS rebinding
// protection (a loopback connection with a foreign Host: 403) is mcp-go's.
// Shutdown ends its sessions and the http.Server it is given.
type HTTP struct {
	opts       HTTPOptions
	log        *slog.Logger
	streamable *server.StreamableHTTPServer
	tokenSum   [32]byte
	inFlight   chan struct{}
	wireIn     func([]byte) ([]byte, []byte) // Concierge's wire (wire.go)
}

// NewHTTP builds the HTTP transport of s, to be served by srv (its Handler
// is set).
func (s *Server) NewHTTP(srv *http.Server, opts HTTPOptions) *HTTP {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	h := &HTTP{opts: opts, log: s.log, inFlight: make(chan struct{}, opts.MaxInFlight), wireIn: s.wireIn}
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
	if opts.Stateless {
		sopts = append(sopts, server.WithStateLess(true))
	} else {
		sopts = append(sopts, server.WithSessionIdManager(&sessionIDs{}))
		if opts.SessionIdleTimeout > 0 {
			sopts = append(sopts, server.WithSessionIdleTTL(opts.SessionIdleTimeout))
		}
	}
	h.streamable = server.NewStreamableHTTPServer(s.mcp, sopts...)
	mux := http.NewServeMux()
	mux.Handle(Endpoint, h.guard(h.streamable))
	srv.Handler = h.logged(mux)
	return h
}

// Streamable is mcp-go's handler, for Shutdown.
func (h *HTTP) Streamable() *server.StreamableHTTPServer { return h.streamable }

// guard applies the Origin, token, concurrency and size checks before mcp-go sees the
// request.
func (h *HTTP) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !h.originAllowed(o) {
			http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed; start planctl serve with --allow-origin %s to accept it", o, o), http.StatusForbidden)
			return
		}
		if h.opts.AuthToken != "" && !h.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="planctl"`)
			http.Error(w, "Unauthorized: send the token given to planctl serve as 'Authorization: Bearer <token>'", http.StatusUnauthorized)
			return
		}
		select {
		case h.inFlight <- struct{}{}:
			defer func() { <-h.inFlight }()
		default:
			w.Header().Set("Retry-After", "1")
			http.Error(w, fmt.Sprintf("Service Unavailable: %d requests are being served already (--max-inflight); retry in a moment", h.opts.MaxInFlight), http.StatusServiceUnavailable)
			return
		}
		if r.Body != nil && r.Method == http.MethodPost {
			if r.ContentLength > h.opts.MaxBody {
				tooLarge(w, h.opts.MaxBody)
				return
			}
			body, err := io.ReadAll(io.LimitReader(r.Body, h.opts.MaxBody+1))
			if err != nil {
				http.Error(w, "cannot read the request body: "+err.Error(), http.StatusBadRequest)
				return
			}
			if int64(len(body)) > h.opts.MaxBody {
				tooLarge(w, h.opts.MaxBody)
				return
			}
			if tooDeep(body, MaxRequestDepth) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write(parseErrorLine(depthMessage))
				return
			}
			if pass, reply := h.wireIn(body); reply != nil {
				w.Header().Set("Content-Type", "application/json")
				w.Write(reply)
				return
			} else {
				body = pass
				r.ContentLength = int64(len(body))
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(wireOutWriter{w}, r) // isError explicit, as Concierge (wire.go)
	})
}

func tooLarge(w http.ResponseWriter, limit int64) {
	w.Header().Set("Connection", "close")
	http.Error(w, fmt.Sprintf("Request Entity Too Large: the body is over the limit of %d bytes; send a smaller plan or raise --max-body", limit), http.StatusRequestEntityTooLarge)
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
	barrier *progressBarrier
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
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	if bytes.Contains(b, progressMark) {
		w.barrier.wrote()
	}
	return n, err
}

func (w *statusWriter) Flush() {
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
		sw := &statusWriter{ResponseWriter: w, barrier: newProgressBarrier()}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), barrierKey{}, sw.barrier)))
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		h.log.Info("http", "method", r.Method, "path", r.URL.Path, "status", sw.status,
			"bytes", sw.bytes, "remote", r.RemoteAddr, "duration", time.Since(start))
	})
}
