package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/mcpserver"
	"github.com/spf13/cobra"
)

type serveFlags struct {
	src             sourceFlags
	stdio           bool
	http            string
	stateless       bool
	noPreflight     bool
	stepTimeout     time.Duration
	planTimeout     time.Duration
	shutdownTimeout time.Duration
	allowOrigins    []string
	authToken       string
	maxBody         int64
	maxSteps        int
	maxResult       int64
	maxInFlight     int
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
unless ADDR names a host; any other host is served with a warning. Over HTTP
a foreign Origin gets 403, a missing or wrong --auth-token 401, a body over
--max-body 413, and a request past --max-inflight at once 503. --stateless keeps no session, so replicas can sit behind any
load balancer.

One log line per request and per step goes to stderr, or to --log FILE; no
token and no argument value is ever logged. SIGINT or SIGTERM stops taking
plans, lets running ones finish for --shutdown-timeout, then cancels them.`,
		Example: `  planctl serve
  planctl serve --catalog tools.json --no-preflight
  planctl serve --http :8080 --auth-token "$TOKEN"
  planctl serve --http 0.0.0.0:8080 --stateless --allow-origin https://app.example.com`,
		Args: exactArgs(0, "no arguments (the tool source is given by flags)"),
		RunE: func(c *cobra.Command, _ []string) error {
			// The token is taken out of the environment, so that no
			// server started by --server inherits it; it applies to HTTP
			// only, so an exported token does not stop 'serve' on stdio.
			if tok, ok := os.LookupEnv("PLANCTL_AUTH_TOKEN"); ok {
				os.Unsetenv("PLANCTL_AUTH_TOKEN")
				if !c.Flags().Changed("auth-token") && f.http != "" {
					f.authToken = tok
				}
			}
			return serve(c.Context(), s, f)
		},
	}
	f.src.register(c)
	fl := c.Flags()
	fl.BoolVar(&f.stdio, "stdio", false, "serve over standard input/output (the default)")
	fl.StringVar(&f.http, "http", "", "serve Streamable HTTP at `ADDR` (host:port, or :port for 127.0.0.1), endpoint /mcp")
	fl.BoolVar(&f.stateless, "stateless", false, "HTTP without sessions: any replica can answer any request")
	fl.BoolVar(&f.noPreflight, "no-preflight", false, "skip planctl's validator: Concierge's exact behaviour")
	fl.DurationVar(&f.stepTimeout, "step-timeout", 60*time.Second, "bound each tool call (0: no bound)")
	fl.DurationVar(&f.planTimeout, "plan-timeout", 5*time.Minute, "bound a whole plan (0: no bound)")
	fl.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGINT/SIGTERM, let running plans finish this long before cancelling them")
	fl.StringArrayVar(&f.allowOrigins, "allow-origin", nil, "accept browser requests from `ORIGIN` (scheme://host[:port], repeatable; loopback origins are always accepted)")
	fl.StringVar(&f.authToken, "auth-token", "", "require 'Authorization: Bearer `TOKEN`' over HTTP (default $PLANCTL_AUTH_TOKEN)")
	fl.Int64Var(&f.maxBody, "max-body", mcpserver.DefaultMaxBody, "refuse HTTP request bodies over this many `BYTES` (413)")
	fl.IntVar(&f.maxInFlight, "max-inflight", mcpserver.DefaultMaxInFlight, "over HTTP, refuse requests past this many at once (503)")
	fl.IntVar(&f.maxSteps, "max-steps", mcpserver.DefaultMaxSteps, "refuse plans with more steps")
	fl.Int64Var(&f.maxResult, "max-result", plan.DefaultMaxResult, "fail a step whose tool result is larger than this many `BYTES` (0: no bound)")
	fl.StringVar(&f.logFile, "log", "", "write the log to `FILE` instead of stderr")
	c.MarkFlagFilename("log")
	fl.DurationVar(&f.sessionIdle, "session-idle-timeout", mcpserver.DefaultSessionIdleTimeout, "over HTTP, end a session unused this long (0: never), so clients that vanish leave nothing behind")
	fl.StringVar(&f.debugAddr, "debug-addr", "", "serve Go's runtime figures (/debug/vars: goroutines, memstats; /debug/pprof/) at loopback `ADDR` (off by default)")
	return c
}

func serve(ctx context.Context, s *streams, f *serveFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.stdio && f.http != "" {
		return usage(errors.New("choose one transport: --stdio or --http ADDR"))
	}
	if f.maxBody <= 0 || f.maxSteps <= 0 {
		return usage(errors.New("--max-body and --max-steps must be positive"))
	}
	if f.maxInFlight <= 0 {
		return usage(errors.New("--max-inflight must be positive: it is how many HTTP requests are served at once"))
	}
	if f.http == "" && (f.stateless || f.authToken != "" || len(f.allowOrigins) > 0) {
		return usage(errors.New("--stateless, --auth-token and --allow-origin are for --http ADDR"))
	}
	var logOut io.Writer = s.errOut
	if f.logFile != "" {
		fh, err := os.OpenFile(f.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fatal(fmt.Errorf("cannot open the log: %w", err))
		}
		defer fh.Close()
		logOut = fh
	}
	log := slog.New(slog.NewTextHandler(logOut, nil))
	stopDebug, err := startDebugListener(f.debugAddr, s, log)
	if err != nil {
		return err
	}
	defer stopDebug()

	src, err := f.src.open(ctx, s)
	if err != nil {
		return err
	}
	defer src.Close()
	// A long-running server must outlive its upstream's crashes: the plan
	// that saw the crash fails its step, the next call starts the upstream
	// again (a debugger restarts on the user's word instead).
	if u, ok := src.catalog.Caller.(interface{ SetAutoRestart(bool) }); ok {
		u.SetAutoRestart(true)
	}

	srv := mcpserver.New(mcpserver.Options{
		Catalog:     src.catalog,
		Version:     Version,
		NoPreflight: f.noPreflight,
		StepTimeout: f.stepTimeout,
		MaxResult:   maxResultOption(f.maxResult),
		PlanTimeout: f.planTimeout,
		MaxSteps:    f.maxSteps,
		Logger:      log,
	})

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	if f.http != "" {
		return serveHTTP(ctx, s, f, srv, log, sigs)
	}
	return serveStdio(ctx, s, f, srv, log, sigs)
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

func serveHTTP(ctx context.Context, s *streams, f *serveFlags, srv *mcpserver.Server, log *slog.Logger, sigs chan os.Signal) error {
	addr, explicit, err := listenAddr(f.http)
	if err != nil {
		return usage(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fatal(fmt.Errorf("cannot listen on %s: %w", addr, err))
	}
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	if explicit && !mcpserver.IsLoopbackHost(host) {
		log.Warn("serving on a non-loopback address: anyone who can reach it can run plans; use --auth-token and a TLS proxy", "addr", ln.Addr().String(), "auth", f.authToken != "")
	}
	// An idle keep-alive connection is closed after two minutes: a client
	// that holds connections open without using them cannot pile them up.
	hs := &http.Server{ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	h := srv.NewHTTP(hs, mcpserver.HTTPOptions{
		Stateless:          f.stateless,
		AllowOrigins:       f.allowOrigins,
		AuthToken:          f.authToken,
		MaxBody:            f.maxBody,
		MaxInFlight:        f.maxInFlight,
		SessionIdleTimeout: f.sessionIdle,
	})
	url := "http://" + ln.Addr().String() + mcpserver.Endpoint
	fmt.Fprintf(s.errOut, "planctl: serving execute_plan at %s\n", url)
	log.Info("serving execute_plan over HTTP", "url", url, "stateless", f.stateless, "auth", f.authToken != "",
		"tools", len(srv.Catalog().Tools), "source", srv.Catalog().Source)

	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fatal(fmt.Errorf("http: %w", err))
	case <-ctx.Done():
	case <-sigs:
	}
	// Stop accepting, finish or cancel the running plans, then close.
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout)
	defer cancel()
	go h.Streamable().Shutdown(sctx) // ends sessions and stops accepting
	drain(srv, f, log)
	// Every plan has answered: give the answers a moment to be written.
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()
	hs.Shutdown(wctx)
	hs.Close()
	<-done
	log.Info("stopped")
	return nil
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
