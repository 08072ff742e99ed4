package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/planctl/planctl/plan/mcpserver"
	"github.com/planctl/planctl/plan/runner"
	"github.com/spf13/cobra"
)

type serveFlags struct {
	src             sourceFlags
	stdio           bool
	printConfig     string // --print-config HOST: print its configuration, serve nothing
	http            string
	stateless       bool
	noPreflight     bool
	conciergeWire   bool
	stepTimeout     time.Duration
	planTimeout     time.Duration
	shutdownTimeout time.Duration
	allowOrigins    []string
	authToken       string
	noAuth          bool
	allowHosts      []string
	maxSessions     int
	maxClientSess   int
	maxConns        int
	maxConnsSet     bool
	record          string
	recordMax       int
	recordMaxBytes  int64
	redact          []string
	maxBody         int64
	maxSteps        int
	maxResult       int64
	maxResponse     int64
	maxAnswers      int64
	writeTimeout    time.Duration
	maxInFlight     int
	maxRunning      int
	logFile         string
	debugAddr       string
	sessionIdle     time.Duration
}

func newServeCmd(s *streams) *cobra.Command {
	f := &serveFlags{}
	c := &cobra.Command{
		Use:         "serve [tool source]",
		Annotations: map[string]string{annotServer: "true"},
		Short:       "Be an MCP server whose one tool, execute_plan, runs plans",
		Long: `Serve MCP with one tool, execute_plan, as a Concierge Plan server does: the
model sends a plan, planctl runs it against the chosen tools and answers
{"status": ..., "steps": {...}} (or {"error": ...} for a refused plan, with
isError set). The tool's description teaches the plan contract and lists the
tools exactly as Concierge renders them.

Transports: standard input/output (the default; nothing but MCP is written to
stdout), or Streamable HTTP at /mcp with --http ADDR. --http binds 127.0.0.1
unless ADDR names a host; a non-loopback host needs --allow-host and a token.
Over HTTP a bearer token is required: --auth-token or $PLANCTL_AUTH_TOKEN, or
one generated and printed to stderr at start with a host config to paste;
--no-auth serves without one (loopback only). A foreign Origin or Host gets
403, a missing or wrong token 401, headers over 16 KiB 431, a body over
--max-body 413 (each answered before the body is read, the connection then
closed), an unknown session 404, a request past --max-inflight 503. Past
--max-conns open connections the oldest idle or unauthenticated one is
closed; an initialize past --max-client-sessions or --max-sessions ends the
least recently used session of the client holding the most. A plan whose answer, as written, or whose results and
arguments would take more than --max-response fails at the step that
crosses it, and so does one that would make all plans being served hold
more than --max-answers (a request whose body it has no room for: 503). --stateless keeps no session,
so replicas can sit behind any load balancer. --record DIR keeps a trace of
every plan served: list them with 'planctl traces DIR', open one with
'planctl debug TRACE'.

One log line per request and per step goes to stderr, or to --log FILE; no
token and no argument value is ever logged. SIGINT or SIGTERM stops taking
plans, lets running ones finish for --shutdown-timeout, then cancels them.`,
		Example: `  planctl serve
  planctl serve --catalog tools.json --no-preflight
  planctl serve --http :8080
  PLANCTL_AUTH_TOKEN="$TOKEN" planctl serve --http 0.0.0.0:8080 --allow-host mcp.example.com --stateless`,
		Args: exactArgs(0, "no arguments (the tool source is given by flags)"),
		RunE: func(c *cobra.Command, _ []string) error {
			return runServeCmd(c, s, f)
		},
	}
	f.register(c)
	return c
}

// runServeCmd settles what only cobra knows (which flags were given) and
// the token from the environment, then prints a host's configuration or
// serves.
func runServeCmd(c *cobra.Command, s *streams, f *serveFlags) error {
	// The token is taken out of the environment, so that no
	// server started by --server inherits it; it applies to HTTP
	// only, so an exported token does not stop 'serve' on stdio.
	if tok, ok := takeSecretEnv("PLANCTL_AUTH_TOKEN"); ok {
		if !c.Flags().Changed("auth-token") && f.http != "" {
			if strings.TrimSpace(tok) == "" {
				return usage(errors.New("PLANCTL_AUTH_TOKEN is set but empty or blank: set it to a token, unset it to have one generated, or give --no-auth to serve without one"))
			}
			f.authToken = tok
		}
	}
	if c.Flags().Changed("auth-token") && strings.TrimSpace(f.authToken) == "" {
		// A blank token could never match: the header's token is
		// taken without its surrounding blanks.
		return usage(errors.New("--auth-token is empty or blank: give a token, leave the flag out to have one generated, or give --no-auth to serve without one"))
	}
	f.maxConnsSet = c.Flags().Changed("max-conns")
	if c.Flags().Changed("print-config") {
		if f.stdio && f.http != "" {
			return usage(errors.New("choose one transport: --stdio or --http ADDR"))
		}
		return printConfig(c, s, f)
	}
	return serve(c.Context(), s, f)
}

// register adds serve's flags to c, the tool source's first.
func (f *serveFlags) register(c *cobra.Command) {
	f.src.register(c)
	fl := c.Flags()
	fl.BoolVar(&f.stdio, "stdio", false, "serve over standard input/output (the default)")
	fl.StringVar(&f.printConfig, "print-config", "", "print the configuration `HOST` takes to start this server (stdio) or reach it (--http, with the token), and start nothing: claude-desktop, claude-code, cursor, vscode or inspector")
	fl.StringVar(&f.http, "http", "", "serve Streamable HTTP at `ADDR` (host:port, or :port for 127.0.0.1), endpoint /mcp")
	fl.BoolVar(&f.stateless, "stateless", false, "HTTP without sessions: any replica can answer any request")
	fl.BoolVar(&f.noPreflight, "no-preflight", false, "skip planctl's validator: Concierge's exact behaviour")
	fl.BoolVar(&f.conciergeWire, "concierge-wire", false, "answer as Concierge's server does: its initialize (serverInfo stays planctl's) and tools/list (description, no outputSchema), a refused plan not marked isError, no progress, its protocol edges (docs/concierge.md)")
	fl.DurationVar(&f.stepTimeout, "step-timeout", 60*time.Second, "bound each tool call (0: no bound)")
	fl.DurationVar(&f.planTimeout, "plan-timeout", 5*time.Minute, "bound a whole plan (0: no bound)")
	fl.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGINT/SIGTERM, let running plans finish this long before cancelling them")
	listVar(fl, &f.allowOrigins, "allow-origin", "accept browser requests from `ORIGIN` (scheme://host[:port], repeatable; loopback origins are always accepted)")
	fl.StringVar(&f.authToken, "auth-token", "", "require 'Authorization: Bearer `TOKEN`' over HTTP (default $PLANCTL_AUTH_TOKEN, else one generated and printed at start)")
	fl.BoolVar(&f.noAuth, "no-auth", false, "over HTTP, require no token: any local program or web page that reaches the port can run plans (loopback only)")
	listVar(fl, &f.allowHosts, "allow-host", "answer requests whose Host is `NAME` (repeatable; '*' any); required to bind a non-loopback address")
	fl.IntVar(&f.maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "over HTTP, keep at most this many live sessions: an initialize past it ends the least recently used session of the client that holds the most")
	fl.IntVar(&f.maxClientSess, "max-client-sessions", mcpserver.DefaultMaxClientSessions, "over HTTP, let one client address hold this many live sessions: a new one past it, or past --max-sessions, ends the least recently used of the client that holds the most")
	fl.IntVar(&f.maxConns, "max-conns", mcpserver.DefaultMaxConns, "over HTTP, keep at most this many connections open (each is a file descriptor): past it the oldest idle or unauthenticated one is closed; lowered to fit the descriptor limit (ulimit -n) when left at its default")
	fl.Int64Var(&f.maxBody, "max-body", mcpserver.DefaultMaxBody, "refuse HTTP request bodies over this many `BYTES` (413)")
	fl.IntVar(&f.maxInFlight, "max-inflight", mcpserver.DefaultMaxInFlight, "over HTTP, refuse requests past this many at once (503)")
	fl.IntVar(&f.maxRunning, "max-running", 0, "over HTTP, let this many requests compute at once, the others waiting their turn in order of arrival (0: one per CPU, and Go gets one processor more to read requests, unless GOMAXPROCS is set; -1: no bound)")
	fl.IntVar(&f.maxSteps, "max-steps", mcpserver.DefaultMaxSteps, "refuse plans with more steps")
	fl.Int64Var(&f.maxResult, "max-result", runner.DefaultMaxResult, "fail a step whose tool result is larger than this many `BYTES` (0: no bound)")
	fl.Int64Var(&f.maxResponse, "max-response", mcpserver.DefaultMaxResponse, "fail the step that would make a plan's answer, as written to the client, or its results and resolved arguments summed, larger than this many `BYTES` (0: no bound; the default fits the TypeScript SDK's 10 MiB stdio limit)")
	fl.Int64Var(&f.maxAnswers, "max-answers", mcpserver.DefaultMaxAnswers, "over HTTP, bound what the plans being served hold together to this many `BYTES`, each share taken before it is allocated: a request body (3 times its size; no room: 503), a step's arguments, its tool's answer (a template before rendering, an upstream answer as it streams) and its answer as --max-response counts it (the step that finds no room fails; 0: no bound)")
	fl.DurationVar(&f.writeTimeout, "write-timeout", mcpserver.DefaultWriteTimeout, "over HTTP, drop a client that takes longer than this to read a piece of its answer")
	fl.StringVar(&f.record, "record", "", "the flight recorder: write a trace of every plan served (its steps, or why it was refused) to `DIR`; open one with 'planctl debug TRACE', list them with 'planctl traces DIR'")
	fl.IntVar(&f.recordMax, "record-max", mcpserver.DefaultRecordMax, "with --record, keep at most this many traces, removing the oldest")
	fl.Int64Var(&f.recordMaxBytes, "record-max-bytes", mcpserver.DefaultRecordMaxBytes, "with --record, keep at most this many `BYTES` of traces, removing the oldest (a trace holds its steps' values up to 4 times the request, at least 256 KiB, and notes what it cut)")
	listVar(fl, &f.redact, "redact", "with --record, replace the value of every member named `KEY` with \"[redacted]\" in the traces (repeatable)")
	fl.StringVar(&f.logFile, "log", "", "write the log to `FILE` instead of stderr")
	c.MarkFlagDirname("record")
	c.MarkFlagFilename("log")
	fl.DurationVar(&f.sessionIdle, "session-idle-timeout", mcpserver.DefaultSessionIdleTimeout, "over HTTP, end a session unused this long (0: never), so clients that vanish leave nothing behind")
	fl.StringVar(&f.debugAddr, "debug-addr", "", "serve Go's runtime figures (/debug/vars: goroutines, memstats; /debug/pprof/) at loopback `ADDR` (off by default)")
}

// serve opens the output, the log and the tool source, then serves
// execute_plan on the transport the flags choose until a signal, a closed
// pipe or (stdio) the client going away stops it.
func serve(ctx context.Context, s *streams, f *serveFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := f.check(); err != nil {
		return err
	}
	out, err := openServeOutput(s, f)
	if err != nil {
		return err
	}
	defer out.close()
	s, log := out.s, out.log
	stopDebug, err := startDebugListener(f.debugAddr, s, log)
	if err != nil {
		return err
	}
	defer stopDebug()

	src, err := openServeSource(ctx, s, f, log)
	if err != nil {
		return err
	}
	defer src.Close()
	srv := newServeServer(f, src, log)

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go stopOnClosedPipe(ctx, out.pipes, sigs, log)
	if f.http != "" {
		return serveHTTP(ctx, s, f, srv, log, sigs)
	}
	return serveStdio(ctx, s, f, srv, log, sigs)
}

// check refuses flags that contradict each other or bound nothing, and
// makes --record's folder, before anything is opened.
func (f *serveFlags) check() error {
	if f.stdio && f.http != "" {
		return usage(errors.New("choose one transport: --stdio or --http ADDR"))
	}
	if f.maxBody <= 0 || f.maxSteps <= 0 {
		return usage(errors.New("--max-body and --max-steps must be positive"))
	}
	if f.maxInFlight <= 0 {
		return usage(errors.New("--max-inflight must be positive: it is how many HTTP requests are served at once"))
	}
	if f.maxRunning < -1 {
		return usage(errors.New("--max-running must be a count, 0 (one per CPU) or -1 (no bound)"))
	}
	if f.http == "" && (f.stateless || f.authToken != "" || f.noAuth || len(f.allowOrigins) > 0 || len(f.allowHosts) > 0) {
		return usage(errors.New("--stateless, --auth-token, --no-auth, --allow-origin and --allow-host are for --http ADDR"))
	}
	if f.noAuth && f.authToken != "" {
		return usage(errors.New("choose one: --no-auth or a token (--auth-token, PLANCTL_AUTH_TOKEN)"))
	}
	if err := f.checkRecord(); err != nil {
		return err
	}
	if f.maxSessions <= 0 {
		return usage(errors.New("--max-sessions must be positive: it is how many sessions may be open at once"))
	}
	if f.maxClientSess <= 0 {
		return usage(errors.New("--max-client-sessions must be positive: it is how many sessions one client may hold"))
	}
	if f.maxConns <= 0 {
		return usage(errors.New("--max-conns must be positive: it is how many connections may be open at once"))
	}
	return nil
}

// checkRecord checks the flight recorder's flags and makes its folder.
func (f *serveFlags) checkRecord() error {
	if f.record == "" && len(f.redact) > 0 {
		return usage(errors.New("--redact applies to recorded traces: add --record DIR"))
	}
	if f.record == "" {
		return nil
	}
	if f.recordMax <= 0 {
		return usage(errors.New("--record-max must be positive: it is how many traces --record keeps"))
	}
	if f.recordMaxBytes <= 0 {
		return usage(errors.New("--record-max-bytes must be positive: it is how many bytes of traces --record keeps"))
	}
	if err := checkRecordDir(f.record); err != nil {
		return fatal(err)
	}
	return nil
}

// serveOutput is where serve writes: stdout and stderr watched for a
// closed pipe, and the log.
type serveOutput struct {
	s      *streams
	log    *slog.Logger
	pipes  *pipeWatch
	closes []func() // in the order opened: run last first, as defers
}

// openServeOutput wraps s's stdout and stderr to notice a closed pipe, and
// opens the log (--log FILE, else stderr).
func openServeOutput(s *streams, f *serveFlags) (*serveOutput, error) {
	o := &serveOutput{pipes: newPipeWatch()}
	o.closes = append(o.closes, o.pipes.stop)
	// stderr and the log are written by a goroutine of their own
	// (logwriter.go: a log line must not hold up a request).
	errOut := newLogWriter(o.pipes.wrap(s.errOut))
	o.closes = append(o.closes, func() { errOut.Close() })
	o.s = &streams{in: s.in, out: o.pipes.wrap(s.out), errOut: errOut}
	var logOut io.Writer = o.s.errOut
	if f.logFile != "" {
		fh, err := openLog(f.logFile)
		if err != nil {
			o.close()
			return nil, fatal(err)
		}
		lw := newLogWriter(fh)
		o.closes = append(o.closes, func() { fh.Close() }, func() { lw.Close() })
		logOut = lw
	}
	o.log = slog.New(newLogHandler(logOut, nil)) // slog.TextHandler's text, no lock shared by requests (logwriter.go)
	return o, nil
}

// close flushes and closes the log and stderr writers, and stops watching
// the pipes, last opened first.
func (o *serveOutput) close() {
	for i := len(o.closes) - 1; i >= 0; i-- {
		o.closes[i]()
	}
}

// openServeSource opens the tool source for a long-running server.
func openServeSource(ctx context.Context, s *streams, f *serveFlags, log *slog.Logger) (*toolSource, error) {
	f.src.log = log // upstream servers' log notifications join serve's log
	src, err := f.src.open(ctx, s)
	if err != nil {
		return nil, err
	}
	// A long-running server must outlive its upstream's crashes: the plan
	// that saw the crash fails its step, the next call starts the upstream
	// again (a debugger restarts on the user's word instead).
	if u, ok := src.catalog.Caller.(interface{ SetAutoRestart(bool) }); ok {
		u.SetAutoRestart(true)
	}
	return src, nil
}

// newServeServer is the execute_plan server the flags describe, whatever
// the transport.
func newServeServer(f *serveFlags, src *toolSource, log *slog.Logger) *mcpserver.Server {
	return mcpserver.New(mcpserver.Options{
		Catalog:       src.catalog,
		Version:       Version,
		NoPreflight:   f.noPreflight,
		ConciergeWire: f.conciergeWire,
		StepTimeout:   f.stepTimeout,
		MaxResult:     maxResultOption(f.maxResult),
		MaxResponse:   maxResultOption(f.maxResponse),
		PlanTimeout:   f.planTimeout,
		MaxSteps:      f.maxSteps,
		Logger:        log,
		Record:        mcpserver.RecordOptions{Dir: f.record, Max: f.recordMax, MaxBytes: f.recordMaxBytes, Redact: f.redact},
	})
}

// stopOnClosedPipe stops the server as a signal does when stdout or stderr
// is a closed pipe, until ctx ends.
func stopOnClosedPipe(ctx context.Context, pipes *pipeWatch, sigs chan os.Signal, log *slog.Logger) {
	select {
	case <-pipes.gone:
		log.Warn("stdout or stderr is a closed pipe: stopping")
		select {
		case sigs <- syscall.SIGPIPE:
		default: // a signal is already stopping the server
		}
	case <-ctx.Done():
	}
}

// drain stops taking plans and waits for running ones, at most
// --shutdown-timeout, then cancels them.
func drain(srv *mcpserver.Server, f *serveFlags, log *slog.Logger) {
	n := srv.Running()
	log.Info("shutting down", "running_plans", n, "shutdown_timeout", f.shutdownTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout)
	defer cancel()
	if !srv.Drain(ctx) {
		log.Warn("running plans were cancelled after --shutdown-timeout", "shutdown_timeout", f.shutdownTimeout)
	}
}

func serveStdio(ctx context.Context, s *streams, f *serveFlags, srv *mcpserver.Server, log *slog.Logger, sigs chan os.Signal) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	log.Info("serving execute_plan on stdio", "tools", len(srv.Catalog().Tools), "source", srv.Catalog().Source)
	go func() { done <- srv.ServeStdio(ctx, s.in, s.out) }()
	select {
	case err := <-done:
		// The client closed standard input: it has gone.
		if err != nil && !errors.Is(err, context.Canceled) {
			return fatal(fmt.Errorf("stdio: %w", err))
		}
		return nil
	case <-sigs:
		drain(srv, f, log)
		cancel()
		<-done
		log.Info("stopped")
		return nil
	}
}

// serveHTTP listens, settles the token and the connection bound, and
// serves Streamable HTTP until a signal or ctx stops it.
func serveHTTP(ctx context.Context, s *streams, f *serveFlags, srv *mcpserver.Server, log *slog.Logger, sigs chan os.Signal) error {
	ln, loopback, err := listenHTTP(f)
	if err != nil {
		return err
	}
	generated := false
	if f.authToken == "" && !f.noAuth {
		f.authToken, generated = newToken(), true
	}
	maxConns, err := fitConns(f.maxConns, f.maxConnsSet, descriptorLimit())
	if err != nil {
		ln.Close()
		return usage(err)
	}
	if maxConns != f.maxConns {
		warn(s, f, log, fmt.Sprintf("--max-conns lowered from %d to %d to fit the descriptor limit of %d (ulimit -n) with %d kept for upstream servers, logs and traces", f.maxConns, maxConns, descriptorLimit(), fdReserve))
	}
	// NewHTTP sets the deadlines and the header bound (mcpserver/conns.go).
	hs := &http.Server{}
	f.maxRunning = turnsAndProcs(f.maxRunning, os.Getenv("GOMAXPROCS") != "")
	h := srv.NewHTTP(hs, mcpserver.HTTPOptions{
		Stateless:          f.stateless,
		AllowOrigins:       f.allowOrigins,
		AllowHosts:         f.allowHosts,
		AuthToken:          f.authToken,
		MaxBody:            f.maxBody,
		MaxInFlight:        f.maxInFlight,
		MaxAnswers:         maxResultOption(f.maxAnswers),
		MaxRunning:         f.maxRunning,
		MaxSessions:        f.maxSessions,
		MaxClientSessions:  f.maxClientSess,
		MaxConns:           maxConns,
		SessionIdleTimeout: f.sessionIdle,
		WriteTimeout:       f.writeTimeout,
	})
	announceHTTP(s, f, srv, log, ln.Addr().String(), loopback, generated)
	return runHTTP(ctx, f, srv, h, hs, ln, log, sigs)
}

// listenHTTP opens --http's listener, and refuses a non-loopback address
// that --no-auth or a missing --allow-host would leave open to anyone.
func listenHTTP(f *serveFlags) (ln net.Listener, loopback bool, err error) {
	addr, _, err := listenAddr(f.http)
	if err != nil {
		return nil, false, usage(err)
	}
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		return nil, false, fatal(fmt.Errorf("cannot listen on %s: %w", addr, err))
	}
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	loopback = mcpserver.IsLoopbackHost(host)
	if !loopback {
		if f.noAuth {
			ln.Close()
			return nil, false, usage(fmt.Errorf("--no-auth on a non-loopback address (%s): anyone who reaches it could run plans; give a token (PLANCTL_AUTH_TOKEN) or bind 127.0.0.1", f.http))
		}
		if len(f.allowHosts) == 0 {
			ln.Close()
			return nil, false, usage(fmt.Errorf("serving on a non-loopback address (%s) needs --allow-host NAME, the host name clients use (repeatable; '*' accepts any Host): it is what stops DNS rebinding there", f.http))
		}
	}
	return ln, loopback, nil
}

// announceHTTP tells the operator where the server is, how a client gets
// in (the generated token and a host config to paste), and what is unsafe.
func announceHTTP(s *streams, f *serveFlags, srv *mcpserver.Server, log *slog.Logger, addr string, loopback, generated bool) {
	url := "http://" + addr + mcpserver.Endpoint
	if !loopback {
		warn(s, f, log, "serving on a non-loopback address: put a TLS proxy in front (planctl speaks plain HTTP, and the token travels in every request)", "addr", addr)
	}
	switch {
	case f.noAuth:
		warn(s, f, log, "--no-auth: no token is required; any program on this machine, and any web page a browser here opens that gets past the Origin check, can run plans through this server")
	case generated:
		type entry struct {
			Type    string            `json:"type"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		}
		cfg, _ := json.Marshal(map[string]map[string]entry{"mcpServers": {"planctl": {
			Type: "http", URL: url, Headers: map[string]string{"Authorization": "Bearer " + f.authToken}}}})
		fmt.Fprintf(s.errOut, "planctl: no --auth-token given: clients must send this token, generated for this run (set PLANCTL_AUTH_TOKEN to keep one across runs):\n  Authorization: Bearer %s\nplanctl: host config (an .mcp.json; the MCP Inspector 2.x takes it with --config FILE --server planctl):\n  %s\n", f.authToken, cfg)
	default:
		// The token was given: it is not echoed into a log, but the
		// host's configuration is one flag away.
		fmt.Fprintf(s.errOut, "planctl: host config: add --print-config HOST to this command line (HOST: claude-code, cursor, vscode or inspector) to print one with the token, and start nothing\n")
	}
	fmt.Fprintf(s.errOut, "planctl: serving execute_plan at %s\n", url)
	log.Info("serving execute_plan over HTTP", "url", url, "stateless", f.stateless, "auth", f.authToken != "",
		"tools", len(srv.Catalog().Tools), "source", srv.Catalog().Source)
}

// runHTTP serves on ln until the server fails, ctx ends or a signal
// comes, then shuts down.
func runHTTP(ctx context.Context, f *serveFlags, srv *mcpserver.Server, h *mcpserver.HTTP, hs *http.Server, ln net.Listener, log *slog.Logger, sigs chan os.Signal) error {
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fatal(fmt.Errorf("http: %w", err))
	case <-ctx.Done():
	case <-sigs:
	}
	// Finish or cancel the running plans while still listening: a new
	// request is answered (a new plan with "shutting down, send it again")
	// rather than refused at the socket. Then end the sessions, stop
	// accepting, and give the answers a moment to be written.
	drain(srv, f, log)
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()
	h.Streamable().Shutdown(wctx)
	hs.Close()
	<-done
	log.Info("stopped")
	return nil
}

// fdReserve is the descriptors kept out of --max-conns: the listener,
// the log and traces, and upstream servers' pipes.
const fdReserve = 128

// fitConns checks --max-conns against the descriptor limit (limit <= 0:
// unknown): connections past it would fail to be accepted ("too many
// open files") and take the descriptors upstream calls and traces need.
// The default is lowered to fit; a value given is refused.
func fitConns(maxConns int, set bool, limit int64) (int, error) {
	if limit <= 0 || int64(maxConns)+fdReserve <= limit {
		return maxConns, nil
	}
	fit := int(limit - fdReserve)
	if set || fit < 16 {
		return 0, fmt.Errorf("--max-conns %d does not fit the descriptor limit of %d (ulimit -n) with %d kept for upstream servers, logs and traces: raise the limit or lower --max-conns", maxConns, limit, fdReserve)
	}
	return fit, nil
}

// listenAddr turns --http's ADDR into a listen address: a bare port or
// ":port" binds 127.0.0.1. explicit reports whether ADDR named a host.
func listenAddr(flag string) (addr string, explicit bool, err error) {
	a := flag
	if !strings.Contains(a, ":") {
		a = ":" + a
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return "", false, fmt.Errorf("--http %q is not host:port or :port: %w", flag, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", false, fmt.Errorf("--http %q: the port must be a number from 0 to 65535 (0: any free port)", flag)
	}
	if host == "" {
		return net.JoinHostPort("127.0.0.1", port), false, nil
	}
	return net.JoinHostPort(host, port), true, nil
}

// newToken is a bearer token of 192 random bits.
func newToken() string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b[:])
}

// warn tells the operator on stderr, whatever --log says, and the log too
// when it is a file.
func warn(s *streams, f *serveFlags, log *slog.Logger, msg string, args ...any) {
	fmt.Fprintf(s.errOut, "planctl: warning: %s\n", msg)
	if f.logFile != "" {
		log.Warn(msg, args...)
	}
}

// checkRecordDir makes --record's directory (0700: traces hold plans and
// results) and checks that a trace can be written there, before serving.
func checkRecordDir(dir string) error {
	if fi, err := os.Lstat(dir); err == nil {
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("--record %s is a symbolic link: give the folder it names, or another folder (traces hold tool results, and a link can lead into another user's folder)", dir)
		case !fi.IsDir():
			return fmt.Errorf("--record %s is not a folder", dir)
		case fi.Mode().Perm()&0o022 != 0:
			return fmt.Errorf("--record %s is writable by others (mode %v): another user could plant or swap traces there; run chmod go-w %s, or give a folder of your own", dir, fi.Mode().Perm(), dir)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("--record %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("--record %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".planctl-check-*")
	if err != nil {
		return fmt.Errorf("--record %s: cannot write traces there: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// openLog opens serve's --log FILE for appending: never through a
// symbolic link (O_NOFOLLOW: a link planted in its place would send the
// log elsewhere), only a regular file of this user, and with mode 0600
// even when it existed with another (the log names sessions, tools and
// clients' addresses). /dev/null is taken as it is.
func openLog(path string) (*os.File, error) {
	if path == os.DevNull {
		// The null device is nobody's file and keeps nothing: a user's
		// way to drop the log (the soak does).
		return os.OpenFile(path, os.O_WRONLY, 0)
	}
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|noFollow|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("--log %s is a symbolic link: give the file itself (planctl does not follow a link for its log)", path)
		}
		return nil, fmt.Errorf("cannot open the log: %w", err)
	}
	if !ownedByMe(fh) {
		fh.Close()
		return nil, fmt.Errorf("--log %s is not a regular file of yours: give another path", path)
	}
	if err := fh.Chmod(0o600); err != nil {
		fh.Close()
		return nil, fmt.Errorf("cannot make the log %s private (mode 0600): %w", path, err)
	}
	return fh, nil
}

// turnsAndProcs gives the number of requests that compute at once over
// HTTP (--max-running; 0: one per CPU Go uses) and gives Go one processor
// (P) more than that, unless GOMAXPROCS is set in the environment or
// turns are off (-1). The turns keep every P busy with the requests they
// let through, handing each free turn to the next in line, and a P that
// always has work never polls the network: a request that arrived
// meanwhile waited, unread, for the runtime's monitor to poll (up to 10
// ms) and then behind the line, and that was the p99
// (docs/design/serve-latency.md). The one P more has no turn to run, so it reads new requests
// and writes answers as they come. Setting GOMAXPROCS stops Go from
// following a change of the CPU quota at run time; serve keeps the value
// it started with.
func turnsAndProcs(maxRunning int, procsSet bool) int {
	if maxRunning < 0 {
		return maxRunning
	}
	if maxRunning == 0 {
		maxRunning = runtime.GOMAXPROCS(0)
	}
	if !procsSet && maxRunning == runtime.GOMAXPROCS(0) {
		// As many turns as Ps (the default): one P more. With fewer
		// turns there is a P left already; with more, the CPUs are
		// oversubscribed by choice.
		runtime.GOMAXPROCS(maxRunning + 1)
	}
	return maxRunning
}
