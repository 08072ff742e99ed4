package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/dap"
	"github.com/planctl/planctl/plan/mcpserver"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/upstream"
	"github.com/spf13/cobra"
)

func newDAPCmd(s *streams) *cobra.Command {
	var listen string
	c := &cobra.Command{
		Use:   "dap",
		Short: "Be a Debug Adapter (DAP) for editors: step through a plan in VS Code, Neovim, ...",
		Long: `Speak the Debug Adapter Protocol on standard input and output (or, with
--listen, on one TCP connection on loopback), so that VS Code, Neovim (nvim-dap),
Helix, Emacs and other DAP clients step through a plan: breakpoints on the plan's
lines (moved to the line where their step starts; hit counts; conditions are queries
over the results so far), one thread, the step about to run as the top frame above
the finished steps, the scopes Arguments, Result and Response, next, continue,
restart, pause, setVariable on an argument of the next step (validated), and
evaluate of STEP.key.key, an output_by_reference object or a query.

The launch (or attach) configuration: "program" (the plan file, or a trace, which
opens the recorded run with its answers), the tool source as the flags of the same
names mean it ("catalog", "server", "url", "headers", "config" with "serverName",
"replay", "sharable"), "stopOnEntry", "stepTimeout" (a Go duration; default 60s),
"cwd", "env" (for a stdio server) and "noDebug". The host's own keys ("name", the
configuration's label, "type", "request", "__sessionId", ...) and unknown keys are
ignored. Restart reads the plan again and takes the configuration it carries.
The table: docs/debug.md, "Launch and attach attributes".

With --listen, any local user could connect to the port, so a launch or attach must
carry "token": the one planctl prints on stderr when it starts (or $PLANCTL_DAP_TOKEN,
at least 16 characters, for a configuration written once). Connections without it
launch nothing; the first client with it holds the session, and the port closes.`,
		Example: `  planctl dap                       # an editor starts it and talks on stdio
  planctl dap --listen 127.0.0.1:4711  # for clients that connect over TCP; give "token" as printed`,
		Args: exactArgs(0, "no arguments (the plan comes with the client's launch request)"),
		RunE: func(c *cobra.Command, _ []string) error {
			opts := dap.Options{Open: openDAPLaunch(s), Version: Version, Log: s.errOut}
			// Read (and taken out of the environment) whatever the
			// transport, so that no server a launch starts inherits it.
			token, fromEnv, err := dapToken()
			if listen == "" {
				return dap.NewServer(opts).Serve(stdioStream{s.in, s.out})
			}
			if err != nil {
				return err
			}
			ln, err := listenLoopback(listen)
			if err != nil {
				return err
			}
			opts.Token = token
			if fromEnv {
				fmt.Fprintf(s.errOut, "planctl dap: listening on %s; the launch configuration's \"token\" is $%s\n", ln.Addr(), dapTokenEnv)
			} else {
				fmt.Fprintf(s.errOut, "planctl dap: listening on %s; add \"token\": %q to the launch (or attach) configuration\n", ln.Addr(), token)
			}
			return serveDAPListener(ln, opts)
		},
	}
	c.Flags().StringVar(&listen, "listen", "", "serve one DAP client on TCP `ADDR` (loopback only: 127.0.0.1:PORT, [::1]:PORT or a port) instead of stdio")
	return c
}

// dapTokenEnv names the variable that gives dap --listen its token, for a
// launch configuration written once; without it a new token is made at
// every start.
const dapTokenEnv = "PLANCTL_DAP_TOKEN"

// dapToken is the token a client of dap --listen must give: any local
// user can connect to a loopback port, and a launch runs commands as
// planctl's user. From $PLANCTL_DAP_TOKEN (then removed from planctl's
// environment, so that no server it starts inherits it), else 32 random
// bytes.
func dapToken() (token string, fromEnv bool, err error) {
	if t, ok := takeSecretEnv(dapTokenEnv); ok {
		if strings.TrimSpace(t) == "" || len(t) < 16 {
			return "", false, usage(fmt.Errorf("$%s is shorter than 16 characters: set it to a long random value (openssl rand -hex 32), or unset it for a token made at each start", dapTokenEnv))
		}
		return t, true, nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", false, fatal(fmt.Errorf("making the DAP token: %w", err))
	}
	return hex.EncodeToString(b), false, nil
}

// maxDAPPending bounds the connections dap --listen reads at once before
// one of them gives the token.
const maxDAPPending = 32

// dapAuthWindow is how long a connection to dap --listen may take to give
// the token (hosts send initialize and launch at once).
const dapAuthWindow = 30 * time.Second

// serveDAPListener serves the first client that launches with the token:
// every connection is read at once, so that a stranger who connects first
// and sends nothing (or no token) keeps no one out. When a client gives
// the token the listener closes, the other connections are dropped, and
// that session is served to its end.
func serveDAPListener(ln net.Listener, opts dap.Options) error {
	var (
		mu      sync.Mutex
		owner   net.Conn
		pending = map[net.Conn]bool{}
		done    = make(chan error, 1)
	)
	for {
		conn, err := ln.Accept()
		if err != nil {
			mu.Lock()
			claimed := owner != nil
			mu.Unlock()
			if claimed {
				return <-done
			}
			return fatal(fmt.Errorf("accepting a DAP client: %w", err))
		}
		mu.Lock()
		full := len(pending) >= maxDAPPending
		if !full {
			pending[conn] = true
		}
		mu.Unlock()
		if full {
			conn.Close() // a crowd of strangers costs a bounded number of sessions
			continue
		}
		// A connection has dapAuthWindow to give the token, so that
		// strangers who connect and wait do not fill the slots for ever.
		conn.SetReadDeadline(time.Now().Add(dapAuthWindow))
		o := opts
		o.Claim = func() error {
			mu.Lock()
			defer mu.Unlock()
			if owner != nil {
				return errors.New("another client holds this adapter's session")
			}
			conn.SetReadDeadline(time.Time{})
			owner = conn
			delete(pending, conn)
			for c := range pending {
				c.Close()
			}
			ln.Close()
			return nil
		}
		go func() {
			defer conn.Close()
			err := dap.NewServer(o).Serve(conn)
			mu.Lock()
			delete(pending, conn)
			mine := owner == conn
			mu.Unlock()
			if mine {
				done <- err
			}
		}()
	}
}

// listenLoopback listens on a loopback address: the adapter runs tools
// for whoever connects, so it takes no connection from elsewhere.
func listenLoopback(addr string) (net.Listener, error) {
	a := addr
	if _, _, err := net.SplitHostPort(a); err != nil {
		a = net.JoinHostPort("127.0.0.1", a)
	}
	host, _, err := net.SplitHostPort(a)
	if err != nil {
		return nil, usage(fmt.Errorf("--listen %q is not host:port or a port: %w", addr, err))
	}
	if host == "" {
		a = "127.0.0.1" + a
	} else if !mcpserver.IsLoopbackHost(host) {
		return nil, usage(errors.New("--listen must be a loopback address (127.0.0.1:PORT, [::1]:PORT or a port): whoever connects runs the plan's tools"))
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return nil, fatal(fmt.Errorf("cannot listen on %s: %w", a, err))
	}
	return ln, nil
}

// openDAPLaunch opens a launch request's plan and tools the way
// `planctl debug` opens its arguments: the same tool sources (through
// sourceFlags.open), and a trace as the program opens the recorded plan
// with its answers, or with the tools given beside it; the Debugger is
// newDebugger's, as debug's. The adapter calls it for every launch and
// restart.
func openDAPLaunch(s *streams) func(ctx context.Context, l dap.Launch) (*dap.Opened, error) {
	return func(ctx context.Context, l dap.Launch) (*dap.Opened, error) {
		f := &sourceFlags{catalogs: l.Catalog, servers: l.Server, urls: l.URL, headers: l.Headers,
			config: l.Config, name: l.ServerName, replay: l.Replay, sharable: l.Sharable, live: true, dir: l.Cwd,
			Shape: l.Shape(), serverLog: l.ServerLog}
		if l.Config != "" && l.ServerName == "" && l.Name != "" {
			// "name" once picked the server; a configuration still written
			// so would now start every server of the file.
			if names, err := upstream.ServerNames(l.Config); err == nil && len(names) > 1 && slices.Contains(names, l.Name) {
				return nil, fmt.Errorf(`%s holds %d servers and "name" %q is one of them: in a launch configuration, pick the server with "serverName" ("name" %q is only the configuration's label), or leave "serverName" out to use every server`,
					l.Config, len(names), l.Name, l.Name)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(l.Env)) {
			f.env = append(f.env, k+"="+l.Env[k])
		}
		// The protocol is on standard output: an upstream server's stderr
		// and planctl's notes go to stderr only.
		t, err := openDebugTarget(ctx, &streams{in: eofReader{}, out: s.errOut, errOut: s.errOut}, f, l.Program, plan.Limits{})
		if err != nil {
			return nil, launchHint(l, err)
		}
		dbg := newDebugger(t, debuggerOptions{run: runner.RunOptions{StepTimeout: l.Timeout()}})
		return &dap.Opened{Debugger: dbg, FromTrace: t.fromTrace, Close: t.src.Close}, nil
	}
}

// launchHint says, in a launch configuration's terms, how to pick a server
// from "config": the command line's --name is "serverName" there, and
// "name" is only the configuration's label (it once meant the server, so
// a configuration written then is told what to change).
func launchHint(l dap.Launch, err error) error {
	if l.Config == "" || l.ServerName != "" || !strings.Contains(err.Error(), "--name") {
		return err
	}
	hint := `in a launch configuration, pick the server with "serverName"`
	if l.Name != "" {
		hint += fmt.Sprintf(` ("name" %q is only the configuration's label)`, l.Name)
	}
	return fmt.Errorf("%w; %s", err, hint)
}
