// Package upstream makes an MCP server a planctl tool source: it starts or
// reaches the server with mcp-go's client (stdio, Streamable HTTP, or an
// mcpServers file entry), reads its catalog from tools/list with the schemas
// exactly as sent, and calls its tools, mapping each result to a plan value
// (MapResult). A Concierge Plan server (one that lists only
// execute_plan) is unwrapped: its catalog is recovered from the
// description and each step runs as a one-step plan.
//
//	u, err := upstream.Open(ctx, upstream.Config{URL: "http://127.0.0.1:8765/mcp"})
//	defer u.Close()
//	r := runner.NewRun(p, u.Catalog(), runner.RunOptions{StepTimeout: time.Minute})
//
// (Config{Command: []string{"npx", "-y", "@modelcontextprotocol/server-memory"}}
// starts a server over stdio instead.)
package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/plan"
)

// Upstream is a connection to one MCP server and the catalog read from it.
// It is the catalog's Caller. Calls may run concurrently.
type Upstream struct {
	cfg     Config
	catalog *plan.Catalog
	// concierge is set when the server is a Concierge Plan server: tools are
	// called through its execute_plan.
	concierge bool

	autoRestart atomic.Bool
	restartMu   sync.Mutex // one restart at a time

	mu     sync.Mutex
	conn   *conn
	closed bool
	down   error // why there is no session after a failed Reconnect
}

// conn is one live session: a started client and, over stdio, its process.
type conn struct {
	c *client.Client
	// ready is closed once the session is set up (Config.LogLevel sent).
	ready chan struct{}
	// life is the session's context: mcp-go's transport answers the
	// server's requests only while the context it started with lives.
	life context.CancelFunc
	proc *process // nil over HTTP
	ids  atomic.Int64
	dead atomic.Bool
	// progress holds, by progressToken, the plan.ToolProgress functions
	// of the calls in flight that asked for progress.
	progress sync.Map
	// pending holds the tools/call in flight over stdio, by raw JSON-RPC
	// id, for the reader that counts their answers (lineGuard).
	pending sync.Map
}

// Open connects to the server, reads its catalog and returns the upstream.
// Errors say what failed (cannot start, no handshake, bad tools/list) and
// are fatal to the command that asked.
func Open(ctx context.Context, cfg Config) (*Upstream, error) {
	if len(cfg.Command) == 0 && cfg.URL == "" {
		return nil, errors.New("no MCP server given: use --server 'CMD ARG...', --url URL or --config FILE --name NAME")
	}
	if cfg.MaxMessage == 0 {
		cfg.MaxMessage = DefaultMaxMessage
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 60 * time.Second
	}
	if cfg.Label == "" {
		if cfg.URL != "" {
			cfg.Label = redactURL(cfg.URL)
		} else {
			cfg.Label = strings.Join(cfg.Command, " ")
		}
	}
	if cfg.SharableFrom == "" {
		cfg.SharableFrom = "--sharable"
	}
	for _, pat := range cfg.Sharable {
		if err := checkPattern(cfg.SharableFrom, pat); err != nil {
			return nil, err
		}
	}
	u := &Upstream{cfg: cfg}
	cn, err := u.connect(ctx)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	raw, err := cn.listTools(lctx)
	if err != nil {
		err = u.explain(cn, ctx, lctx, "tools/list", err)
		cn.close()
		return nil, err
	}
	tools, concierge, err := buildCatalog(raw, cfg.Sharable, cfg.SharableFrom)
	if err != nil {
		cn.close()
		return nil, fmt.Errorf("%s: %w", cfg.Label, err)
	}
	u.concierge = concierge
	u.conn = cn
	source := cfg.Label
	if concierge {
		source += " (Concierge Plan server)"
	}
	u.catalog, err = plan.NewCatalog(source, tools, u)
	if err != nil {
		cn.close()
		return nil, err
	}
	u.catalog.Sharing = sharingPolicy(tools, cfg.Sharable, concierge)
	return u, nil
}

// Catalog returns the tools read from the server; its Caller is u.
func (u *Upstream) Catalog() *plan.Catalog { return u.catalog }

// Concierge reports whether the server is a Concierge Plan server whose
// tools planctl calls through execute_plan.
func (u *Upstream) Concierge() bool { return u.concierge }

// connect starts a session: the process (stdio) or the HTTP transport,
// then the MCP handshake, bounded by StartTimeout.
func (u *Upstream) connect(ctx context.Context) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, u.cfg.StartTimeout)
	defer cancel()
	cn := &conn{ready: make(chan struct{})}
	if u.cfg.LogLevel == "" {
		close(cn.ready)
	}
	var tr transport.Interface
	if u.cfg.URL != "" {
		// mcp-go logs transport trouble through slog; planctl reports it
		// in the step's error instead, and never on a TUI's screen.
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}
		if u.cfg.MaxMessage > 0 {
			opts = append(opts, transport.WithHTTPBasicClient(&http.Client{Transport: limitBodies{http.DefaultTransport, u.cfg.MaxMessage}}))
		}
		if len(u.cfg.Headers) > 0 {
			opts = append(opts, transport.WithHTTPHeaders(u.cfg.Headers))
		}
		t, err := transport.NewStreamableHTTP(u.cfg.URL, opts...)
		if err != nil {
			return nil, u.scrub(fmt.Errorf("upstream URL %s: %w", redactURL(u.cfg.URL), err))
		}
		tr = t
	} else {
		p, err := startProcess(u.cfg)
		if err != nil {
			return nil, fmt.Errorf("upstream server: %w", err)
		}
		cn.proc = p
		tr = transport.NewIO(p.guard(u.cfg.ServerLog, u.cfg.MaxMessage, &cn.pending), p.stdin, nil)
	}
	// 2025-11-25 is the newest revision with the initialize handshake that
	// every server published so far speaks; mcp-go servers accept it too.
	opts := []client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20251125)}
	if len(u.cfg.Roots) > 0 {
		opts = append(opts, client.WithRootsHandler(noRoots{})) // declares the capability; answerServer answers
	}
	cn.c = client.NewClient(tr, opts...)
	life, stop := context.WithCancel(context.WithoutCancel(ctx))
	cn.life = stop
	if err := cn.c.Start(life); err != nil {
		err = u.explain(cn, context.Background(), ctx, "start", err)
		cn.close()
		return nil, err
	}
	if bi, ok := tr.(transport.BidirectionalInterface); ok {
		bi.SetRequestHandler(cn.afterSetup(u.answerServer))
	}
	cn.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			cn.toolProgress(n)
			return
		}
		u.logNotification(n)
	})
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "planctl", Version: "1"}
	res, err := cn.c.Initialize(ctx, init)
	if err != nil {
		e := u.explain(cn, context.Background(), ctx, "initialize", err)
		cn.close()
		return nil, e
	}
	if u.cfg.LogLevel != "" {
		// A server that declares no logging has no level to set (and may
		// answer method-not-found).
		if res.Capabilities.Logging != nil {
			// Sent as a plain request: mcp-go marks its SetLevel deprecated
			// for protocol 2026-07-28, and planctl speaks 2025-11-25, where
			// logging/setLevel is the way.
			if _, err := cn.request(ctx, "logging/setLevel", map[string]string{"level": u.cfg.LogLevel}); err != nil {
				e := u.explain(cn, context.Background(), ctx, "logging/setLevel "+u.cfg.LogLevel, err)
				cn.close()
				return nil, fmt.Errorf("%w (--upstream-log-level: leave it out to keep the server's own level)", e)
			}
		}
		close(cn.ready)
	}
	return cn, nil
}

// afterSetup holds the server's requests (roots/list, which a server
// sends as soon as it is initialized) until the session is set up, so
// that what the server logs in answering them is at the level asked for.
// A ping is answered at once.
func (cn *conn) afterSetup(h transport.RequestHandler) transport.RequestHandler {
	return func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if req.Method != string(mcp.MethodPing) {
			select {
			case <-cn.ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return h(ctx, req)
	}
}

// explain turns a failure of a request made while opening into a message
// that says which server, what step and why.
func (u *Upstream) explain(cn *conn, outer, ctx context.Context, what string, err error) error {
	switch {
	case outer.Err() != nil:
		return fmt.Errorf("%s: %s was cancelled", u.cfg.Label, what)
	case ctx.Err() != nil:
		why := "it did not answer"
		if cn.proc != nil && !cn.proc.alive() {
			why = cn.proc.fault()
		}
		return fmt.Errorf("%s: no answer to %s within %s: %s", u.cfg.Label, what, u.cfg.StartTimeout, why)
	case cn.proc != nil && (!cn.proc.alive() || errors.Is(err, transport.ErrTransportClosed)):
		return fmt.Errorf("%s: %s failed: %s", u.cfg.Label, what, cn.proc.fault())
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return u.scrub(fmt.Errorf("cannot reach the upstream server %s: %w", redactURL(u.cfg.URL), ue.Err))
	}
	if u.cfg.URL != "" && strings.Contains(err.Error(), "4xx") {
		return u.scrub(fmt.Errorf("%s: %s failed: %w (check the URL and --header: Streamable HTTP servers usually answer at /mcp)", u.cfg.Label, what, err))
	}
	return u.scrub(fmt.Errorf("%s: %s failed: %w", u.cfg.Label, what, err))
}

func (cn *conn) close() {
	if cn.life != nil {
		defer cn.life()
	}
	if cn.c != nil {
		done := make(chan struct{})
		go func() { cn.c.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	}
	if cn.proc != nil {
		cn.proc.stop()
	}
}

// request sends one JSON-RPC request through the session's transport and
// returns the raw result, so schemas and structuredContent keep their bytes
// and key order. When ctx ends first, the server is told with
// notifications/cancelled, as MCP asks.
func (cn *conn) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := mcp.NewRequestId(fmt.Sprintf("planctl-%d", cn.ids.Add(1)))
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params}
	if cs := callFrom(ctx); cs != nil && cn.proc != nil {
		key, _ := json.Marshal(id.Value())
		cn.pending.Store(string(key), cs)
		defer cn.pending.Delete(string(key))
	}
	tr := cn.c.GetTransport()
	type answer struct {
		resp *transport.JSONRPCResponse
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		resp, err := tr.SendRequest(ctx, req)
		ch <- answer{resp, err}
	}()
	var a answer
	select {
	case a = <-ch:
	case <-ctx.Done():
		// Some transports block in a write; never wait on them past ctx.
		a.err = ctx.Err()
	}
	if a.err != nil {
		if ctx.Err() != nil {
			n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
				Method: "notifications/cancelled",
				Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id.Value(), "reason": "planctl: the step was cancelled or timed out"}},
			}}
			nctx, cancel := context.WithTimeout(context.Background(), time.Second)
			go func() { defer cancel(); _ = tr.SendNotification(nctx, n) }()
			return nil, ctx.Err()
		}
		return nil, a.err
	}
	if a.resp.Error != nil {
		return nil, &rpcError{code: a.resp.Error.Code, msg: a.resp.Error.Message}
	}
	return a.resp.Result, nil
}

// rpcError is a JSON-RPC error answer: the server is alive and refused.
type rpcError struct {
	code int
	msg  string
}

func (e *rpcError) Error() string { return e.msg }

// maxPages bounds tools/list paging against a server whose cursors never end.
const maxPages = 1000

// listTools reads every page of tools/list and returns the raw tool objects.
func (cn *conn) listTools(ctx context.Context) ([]json.RawMessage, error) {
	var all []json.RawMessage
	cursor := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("tools/list gave more than %d pages", maxPages)
		}
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		raw, err := cn.request(ctx, "tools/list", params)
		if err != nil {
			return nil, err
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor *string           `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("the tools/list answer is not {\"tools\": [...]}: %w", err)
		}
		all = append(all, res.Tools...)
		if res.NextCursor == nil || *res.NextCursor == "" {
			return all, nil
		}
		if seen[*res.NextCursor] {
			return nil, fmt.Errorf("tools/list repeats the cursor %q: the server's paging loops", *res.NextCursor)
		}
		seen[*res.NextCursor] = true
		cursor = *res.NextCursor
	}
}

// current returns the live session, or an error saying why there is none.
func (u *Upstream) current() (*conn, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.conn == nil {
		if u.down != nil && !u.closed {
			return nil, fmt.Errorf("no session with the upstream server: the last restart failed: %w", u.down)
		}
		return nil, fmt.Errorf("%s is closed", u.cfg.Label)
	}
	return u.conn, nil
}

// Call calls a tool on the server (through execute_plan on a Concierge Plan
// server). A tool failure is a ToolResult with IsError; an error return is
// a transport fault with a message that says what happened to the server,
// or ctx's error when the call was cancelled or timed out.
func (u *Upstream) Call(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
	cn, err := u.current()
	if err != nil {
		return plan.ToolResult{}, err
	}
	if cn.dead.Load() || (cn.proc != nil && !cn.proc.alive()) {
		if !u.autoRestart.Load() {
			return plan.ToolResult{}, u.fault(cn, transport.ErrTransportClosed)
		}
		if cn, err = u.restartDead(ctx, cn); err != nil {
			return plan.ToolResult{}, err
		}
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	name, callArgs := tool, args
	if u.concierge {
		name, callArgs = "execute_plan", oneStepPlan(tool, args)
	}
	params := map[string]any{"name": name, "arguments": callArgs}
	if f := plan.ToolProgressFrom(ctx); f != nil {
		// The server's progress feeds the plan's: the token is ours, so a
		// server cannot report for another call.
		token := fmt.Sprintf("planctl-progress-%d", cn.ids.Add(1))
		cn.progress.Store(token, f)
		defer cn.progress.Delete(token)
		params["_meta"] = map[string]any{"progressToken": token}
	}
	ctx, cs := withCall(ctx)
	raw, err := cn.request(ctx, "tools/call", params)
	if serr := cs.stopped(tool); serr != nil {
		return plan.ToolResult{}, serr
	}
	if err != nil {
		if ctx.Err() != nil {
			return plan.ToolResult{}, ctx.Err()
		}
		var rpc *rpcError
		if errors.As(err, &rpc) {
			// The server is alive and refused the call (unknown tool, bad
			// arguments): to the plan that is the tool failing.
			return plan.ToolResult{IsError: true, Error: rpc.msg}, nil
		}
		return plan.ToolResult{}, u.fault(cn, err)
	}
	res, err := MapResult(raw)
	if err != nil {
		return plan.ToolResult{}, fmt.Errorf("%s answered tools/call %q with something that is not a tool result: %w", u.cfg.Label, name, err)
	}
	if u.concierge && !res.IsError {
		return unwrapOneStep(res.Value)
	}
	if u.concierge && res.IsError {
		return unwrapRejection(res), nil
	}
	return res, nil
}

// fault marks the session dead when the transport failed and says why.
func (u *Upstream) fault(cn *conn, err error) error {
	if cn.proc != nil {
		if !cn.proc.alive() || errors.Is(err, transport.ErrTransportClosed) {
			cn.dead.Store(true)
			return fmt.Errorf("%s (restart to start it again)", cn.proc.fault())
		}
		return fmt.Errorf("upstream server: %w", err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return u.scrub(fmt.Errorf("upstream server %s is unreachable: %w", redactURL(u.cfg.URL), ue.Err))
	}
	return u.scrub(fmt.Errorf("upstream server %s: %w", redactURL(u.cfg.URL), err))
}

// Down reports whether the session is gone: the stdio server exited or
// the transport failed (a call said so), or the last Reconnect failed. A
// debugger then reconnects before its next call (plan.Downer).
func (u *Upstream) Down() bool {
	u.mu.Lock()
	cn, closed := u.conn, u.closed
	u.mu.Unlock()
	if closed {
		return false
	}
	return cn == nil || cn.dead.Load() || (cn.proc != nil && !cn.proc.alive())
}

// SetAutoRestart makes a call that finds the server dead start it again
// first, as a long-running `planctl serve` wants; the call that saw the
// crash still fails. Off by default: a debugger restarts on the user's
// word (Reconnect).
func (u *Upstream) SetAutoRestart(on bool) { u.autoRestart.Store(on) }

// restartDead replaces the dead session cn, unless another call already did.
func (u *Upstream) restartDead(ctx context.Context, cn *conn) (*conn, error) {
	u.restartMu.Lock()
	defer u.restartMu.Unlock()
	u.mu.Lock()
	cur := u.conn
	u.mu.Unlock()
	if cur != nil && cur != cn {
		return cur, nil
	}
	if err := u.Reconnect(ctx); err != nil {
		return nil, fmt.Errorf("the upstream server had stopped and could not be started again: %w", err)
	}
	return u.current()
}

// Reconnect ends the current session (stopping a stdio server) and opens a
// new one, so a debugger can restart after the server crashed. The catalog
// is kept: a plan's diagnostics were computed against it.
func (u *Upstream) Reconnect(ctx context.Context) error {
	u.mu.Lock()
	old := u.conn
	u.conn = nil
	u.mu.Unlock()
	if old != nil {
		old.close()
	}
	cn, err := u.connect(ctx)
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		if cn != nil {
			go cn.close()
		}
		return fmt.Errorf("%s is closed", u.cfg.Label)
	}
	u.conn, u.down = cn, err
	return err
}

// Close ends the session and stops a stdio server.
func (u *Upstream) Close() error {
	u.mu.Lock()
	cn := u.conn
	u.conn, u.closed = nil, true
	u.mu.Unlock()
	if cn != nil {
		cn.close()
	}
	return nil
}

// scrub takes the upstream URL's secrets (user info, query values) out of
// err's text, wherever a library quoted the URL; the error still unwraps
// to err.
func (u *Upstream) scrub(err error) error {
	if err == nil || u.cfg.URL == "" {
		return err
	}
	msg := scrubURL(err.Error(), u.cfg.URL)
	if msg == err.Error() {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }
