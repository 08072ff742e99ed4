// Package servetest holds the end-to-end tests of planctl serve: the built
// binary as a real stdio subprocess and a real HTTP server, driven by the
// mcp-go client, the official TypeScript SDK client, the Inspector CLI,
// and nginx in front of stateless replicas.
package servetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

var binary string

// TestMain builds the real binary once.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "bigstdio" {
		n, _ := strconv.Atoi(os.Args[2])
		serveBigStdio(n)
		return
	}
	clitest.Main(m, func(dir string) { binary = filepath.Join(dir, "planctl") }, "planctl=..")
}

// root is the repository, where samples/ lives.
const root = "../../.."

// syncBuffer collects a process's output while the test reads it.
type syncBuffer = clitest.Buffer

func initialize(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "servetest", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
}

// stdioClient starts `planctl serve args...` as a subprocess.
func stdioClient(t *testing.T, args ...string) (*client.Client, *syncBuffer) {
	t.Helper()
	stderr := &syncBuffer{}
	tr := transport.NewStdioWithOptions(binary, nil, append([]string{"serve"}, args...),
		transport.WithCommandStderrWriter(stderr),
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			cmd := clitest.CommandContext(ctx, command, args...)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		}))
	c := client.NewClient(tr)
	initialize(t, c)
	t.Cleanup(func() { c.Close() })
	return c, stderr
}

// server is a `planctl serve --http` process.
type server struct {
	cmd    *exec.Cmd
	url    string
	token  string // the token it printed, when it generated one
	stderr *syncBuffer
	done   chan error
}

var (
	urlLine   = regexp.MustCompile(`serving execute_plan at (http://\S+)`)
	tokenLine = regexp.MustCompile(`^  Authorization: Bearer (\S+)$`)
	// tokens are the generated tokens by URL: httpClient sends them.
	tokens sync.Map
)

// startHTTP starts `planctl serve --http 127.0.0.1:0 args...` and waits
// for the address it listens on.
func startHTTP(t *testing.T, env []string, args ...string) *server {
	t.Helper()
	return startHTTPAt(t, "127.0.0.1:0", env, args...)
}

// startHTTPAt starts `planctl serve --http addr args...`; the URL it
// returns is on 127.0.0.1.
func startHTTPAt(t *testing.T, addr string, env []string, args ...string) *server {
	t.Helper()
	return startHTTPWith(t, []string{binary}, addr, env, args...)
}

// startHTTPWith starts `planctl serve --http addr args...` with the
// command line prefix (planctl's path last) before "serve".
func startHTTPWith(t *testing.T, prefix []string, addr string, env []string, args ...string) *server {
	t.Helper()
	cmd := clitest.Command(prefix[0], append(append(prefix[1:len(prefix):len(prefix)], "serve", "--http", addr), args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	s := &server{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = io.MultiWriter(s.stderr, pw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait(); pw.Close() }()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if m := tokenLine.FindStringSubmatch(sc.Text()); m != nil {
			s.token = m[1]
		}
		if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
			s.url = strings.Replace(m[1], "//0.0.0.0:", "//127.0.0.1:", 1)
			break
		}
	}
	if s.token != "" {
		tokens.Store(s.url, s.token)
	}
	go io.Copy(io.Discard, pr)
	if s.url == "" {
		t.Fatalf("planctl serve did not start:\n%s", s.stderr.String())
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.done
	})
	return s
}

// auth is the Authorization header for the server at url: the token it
// generated, if it did.
func auth(url string) map[string]string {
	if tok, ok := tokens.Load(url); ok {
		return map[string]string{"Authorization": "Bearer " + tok.(string)}
	}
	return map[string]string{}
}

// httpClient connects to url, with the token the server generated unless
// opts set headers of their own.
func httpClient(t *testing.T, url string, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	opts = append([]transport.StreamableHTTPCOption{transport.WithHTTPHeaders(auth(url))}, opts...)
	c, err := client.NewStreamableHttpClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	initialize(t, c)
	t.Cleanup(func() { c.Close() })
	return c
}

func callPlan(ctx context.Context, c *client.Client, planJSON []byte, token any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = "execute_plan"
	req.Params.Arguments = json.RawMessage(planJSON)
	if token != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	return c.CallTool(ctx, req)
}

func text(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	if len(r.Content) != 1 {
		t.Fatalf("want one content block, got %+v", r.Content)
	}
	tc, ok := r.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", r.Content[0])
	}
	// The text is json.dumps(response, indent=2), as Concierge writes it
	// (wire_test.go checks it byte for byte): compare the compact form here.
	var b bytes.Buffer
	if json.Compact(&b, []byte(tc.Text)) == nil {
		return b.String()
	}
	return tc.Text
}

func planctlOut(t *testing.T, args ...string) string {
	t.Helper()
	cmd := clitest.Command(binary, args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("planctl %v: %v", args, err)
	}
	return string(out)
}

// transports runs f against a stdio subprocess and a real HTTP server,
// both serving `planctl serve args...`; each has a server of its own, so
// they run in parallel.
func transports(t *testing.T, args []string, f func(t *testing.T, c *client.Client, stderr *syncBuffer)) {
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		c, stderr := stdioClient(t, args...)
		f(t, c, stderr)
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		s := startHTTP(t, nil, args...)
		f(t, httpClient(t, s.url), s.stderr)
	})
	t.Run("http-stateless", func(t *testing.T) {
		t.Parallel()
		s := startHTTP(t, nil, append([]string{"--stateless"}, args...)...)
		f(t, httpClient(t, s.url), s.stderr)
	})
}

// TestServedAnswersAreRunAnswers: with --no-preflight every sample plan gets
// Concierge's exact answer (samples/expected) over every transport; the tool list
// is the one planctl tools --format concierge prints.
func TestServedAnswersAreRunAnswers(t *testing.T) {
	t.Parallel()
	samples, _ := filepath.Glob(filepath.Join(root, "samples", "*.json"))
	if len(samples) == 0 {
		t.Fatal("no samples")
	}
	concierge := planctlOut(t, "tools", "--format", "concierge")
	transports(t, []string{"--no-preflight"}, func(t *testing.T, c *client.Client, _ *syncBuffer) {
		tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tools.Tools) != 1 || !strings.HasSuffix(tools.Tools[0].Description+"\n", "AVAILABLE TOOLS:\n\n"+concierge) {
			t.Errorf("tools/list: %+v", tools.Tools)
		}
		for _, path := range samples {
			name := strings.TrimSuffix(filepath.Base(path), ".json")
			want, err := os.ReadFile(filepath.Join(root, "samples", "expected", name+".response.json"))
			if err != nil {
				continue
			}
			data, _ := os.ReadFile(path)
			res, err := callPlan(context.Background(), c, data, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got := text(t, res)
			raised := res.IsError && res.StructuredContent == nil
			if raised {
				// Concierge raised: the bare message, where run shows {"error": ...}.
				got = string(runner.ErrorResponse(got))
			}
			if string(jsontext.Indent([]byte(got))) != strings.TrimSpace(string(want)) {
				t.Errorf("%s: served answer differs from planctl run's:\n%s", name, got)
			}
			sc, _ := json.Marshal(res.StructuredContent)
			if !raised && remarshal(sc) != remarshal([]byte(got)) {
				t.Errorf("%s: structuredContent differs from the text: %s", name, sc)
			}
			if refused := strings.HasPrefix(got, `{"error"`); res.IsError != refused {
				t.Errorf("%s: isError=%v for %s", name, res.IsError, got)
			}
		}
	})
}

func remarshal(b []byte) string {
	var v any
	json.Unmarshal(b, &v)
	out, _ := json.Marshal(v)
	return string(out)
}

// TestProgressAndCancellation: a slow plan sends progress for the step that
// finished, and cancelling it stops the tool call in flight; the server
// then runs the next plan.
func TestProgressAndCancellation(t *testing.T) {
	t.Parallel()
	slowPlan, _ := os.ReadFile("testdata/slow-plan.json")
	transports(t, []string{"--catalog", "cmd/planctl/servetest/testdata/slow.json"}, func(t *testing.T, c *client.Client, stderr *syncBuffer) {
		progress := make(chan map[string]any, 8)
		c.OnNotification(func(n mcp.JSONRPCNotification) {
			if n.Method == "notifications/progress" {
				progress <- n.Params.AdditionalFields
			}
		})
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := callPlan(ctx, c, slowPlan, "slow-1")
			errc <- err
		}()
		p := <-progress
		if p["progressToken"] != "slow-1" || p["progress"] != float64(1) || p["total"] != float64(3) || p["message"] != "step first (fast) ok" {
			t.Errorf("progress: %v", p)
		}
		cancel()
		if err := <-errc; err == nil {
			t.Error("the cancelled call returned no error")
		}
		// The server logs the cancelled step once the tool call has stopped.
		waitFor(t, stderr, `step=wait tool=slow status=error`)
		res, err := callPlan(context.Background(), c, []byte(`{"steps":[{"id":"a","tool":"fast","args":{"n":5}}]}`), nil)
		if err != nil || text(t, res) != `{"status":"completed","steps":{"a":{"status":"ok","result":{"n":5}}}}` {
			t.Errorf("after a cancellation: %v %+v", err, res)
		}
	})
}

// waitFor waits until the log contains s; the test's deadline bounds it.
func waitFor(t *testing.T, log *syncBuffer, s string) {
	t.Helper()
	for !strings.Contains(log.String(), s) {
		waitALittle()
	}
}

func TestStepTimeout(t *testing.T) {
	t.Parallel()
	slowPlan, _ := os.ReadFile("testdata/slow-plan.json")
	c, _ := stdioClient(t, "--catalog", "cmd/planctl/servetest/testdata/slow.json", "--step-timeout", "50ms")
	res, err := callPlan(context.Background(), c, slowPlan, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"status":"partial","steps":{"first":{"status":"ok","result":{"n":1}},"wait":{"status":"error","error":"step \"wait\" timed out after 50ms: tool \"slow\" did not answer within the step timeout (--step-timeout)"}}}`
	if got := text(t, res); got != want || res.IsError {
		t.Errorf("got isError=%v %s\nwant %s", res.IsError, got, want)
	}
}

// TestHTTPSecurity: Origin, token, body and plan limits against the real
// process, which stays up throughout.
func TestHTTPSecurity(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, []string{"PLANCTL_AUTH_TOKEN=tok-e2e"}, "--max-body", "2048", "--max-steps", "2")
	post := func(body string, hdr ...string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("the server is down: %v\n%s", err, s.stderr.String())
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	for _, tc := range []struct {
		name string
		body string
		hdr  []string
		want int
	}{
		{"no token", init, nil, 401},
		{"wrong token", init, []string{"Authorization", "Bearer tok-e2f"}, 401},
		{"foreign origin", init, []string{"Authorization", "Bearer tok-e2e", "Origin", "https://evil.example"}, 403},
		{"oversize body", init + strings.Repeat(" ", 4096), []string{"Authorization", "Bearer tok-e2e"}, 413},
		{"good", init, []string{"Authorization", "Bearer tok-e2e"}, 200},
	} {
		if code, body := post(tc.body, tc.hdr...); code != tc.want {
			t.Errorf("%s: got %d %s, want %d", tc.name, code, body, tc.want)
		}
	}
	c := httpClient(t, s.url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok-e2e"}))
	res, err := callPlan(context.Background(), c, []byte(`{"steps":[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":2}},{"id":"c","tool":"echo","args":{"value":3}}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); !res.IsError || !strings.Contains(got, "the plan has 3 steps, more than the limit of 2") {
		t.Errorf("over --max-steps: isError=%v %s", res.IsError, got)
	}
	if log := s.stderr.String(); strings.Contains(log, "tok-e2e") {
		t.Errorf("the token is in the log:\n%s", log)
	}
}

// TestBindAddresses: a non-loopback bind needs --allow-host (and refuses
// --no-auth), warns on stderr whatever --log says, requires the token it
// generates and answers only the Hosts it was given.
func TestBindAddresses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "0.0.0.0:0"}, "needs --allow-host NAME"},
		{[]string{"--http", "0.0.0.0:0", "--allow-host", "x", "--no-auth"}, "--no-auth on a non-loopback address"},
	} {
		cmd := clitest.Command(binary, append([]string{"serve"}, c.args...)...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v\n%s", c.args, err, out)
		}
	}

	log := filepath.Join(t.TempDir(), "serve.log")
	s := startHTTPAt(t, "0.0.0.0:0", nil, "--allow-host", "planctl.example", "--log", log)
	if !strings.Contains(s.stderr.String(), "planctl: warning: serving on a non-loopback address") {
		t.Errorf("no warning on stderr:\n%s", s.stderr.String())
	}
	if s.token == "" {
		t.Fatalf("no token generated:\n%s", s.stderr.String())
	}
	for _, c := range []struct {
		host, auth string
		want       int
	}{
		{"planctl.example", "", 401},
		{"evil.example", "Bearer " + s.token, 403},
		{"planctl.example:8080", "Bearer " + s.token, 200},
		{"127.0.0.1", "Bearer " + s.token, 200},
	} {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(initBodyText))
		req.Host = c.host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Host %s: %d, want %d", c.host, resp.StatusCode, c.want)
		}
	}

	l := startHTTP(t, nil) // --http 127.0.0.1:0: loopback, no warning
	if strings.Contains(l.stderr.String(), "warning") {
		t.Errorf("warning on loopback:\n%s", l.stderr.String())
	}
}

// TestShutdownLetsRunningPlansFinish: within --shutdown-timeout a running
// plan runs to its end before the process exits.
func TestShutdownLetsRunningPlansFinish(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, nil, "--stateless", "--catalog", "cmd/planctl/servetest/testdata/slow.json", "--shutdown-timeout", "1m")
	c := httpClient(t, s.url)
	progress := make(chan struct{}, 8)
	c.OnNotification(func(n mcp.JSONRPCNotification) { progress <- struct{}{} })
	resc := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := callPlan(context.Background(), c, []byte(`{"steps":[{"id":"a","tool":"fast","args":{"n":1}},{"id":"b","tool":"medium","args":{"n":2}},{"id":"c","tool":"medium","args":{"n":3}}]}`), "p")
		if err != nil {
			t.Error(err)
		}
		resc <- res
	}()
	<-progress
	s.cmd.Process.Signal(syscall.SIGTERM)
	res := <-resc
	want := `{"status":"completed","steps":{"a":{"status":"ok","result":{"n":1}},"b":{"status":"ok","result":{"n":2}},"c":{"status":"ok","result":{"n":3}}}}`
	if res == nil || text(t, res) != want {
		t.Errorf("answer: %+v", res)
	}
	if err := <-s.done; err != nil {
		t.Errorf("exit: %v\n%s", err, s.stderr.String())
	}
	s.done <- nil
}

// TestGracefulShutdownStdio: the same over stdio.
func TestGracefulShutdownStdio(t *testing.T) {
	t.Parallel()
	slowPlan, _ := os.ReadFile("testdata/slow-plan.json")
	started := make(chan *exec.Cmd, 1)
	stderr := &syncBuffer{}
	tr := transport.NewStdioWithOptions(binary, nil,
		[]string{"serve", "--catalog", "cmd/planctl/servetest/testdata/slow.json", "--shutdown-timeout", "100ms"},
		transport.WithCommandStderrWriter(stderr),
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			cmd := clitest.CommandContext(ctx, command, args...)
			cmd.Dir = root
			started <- cmd
			return cmd, nil
		}))
	c := client.NewClient(tr)
	initialize(t, c)
	defer c.Close()
	cmd := <-started
	progress := make(chan struct{}, 8)
	c.OnNotification(func(n mcp.JSONRPCNotification) { progress <- struct{}{} })
	resc := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := callPlan(context.Background(), c, slowPlan, "p")
		if err != nil {
			t.Error(err)
		}
		resc <- res
	}()
	<-progress
	cmd.Process.Signal(syscall.SIGTERM)
	res := <-resc
	want := `"wait":{"status":"error","error":"the server is shutting down: tool \"slow\" was stopped after --shutdown-timeout; send the plan again"}`
	if res == nil || !strings.Contains(text(t, res), want) {
		t.Errorf("answer: %+v\n%s", res, stderr.String())
	}
	waitFor(t, stderr, "msg=stopped")
}

// TestGracefulShutdown: SIGTERM lets a running plan finish within
// --shutdown-timeout, or cancels it after, and the client gets its answer.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	slowPlan, _ := os.ReadFile("testdata/slow-plan.json")
	s := startHTTP(t, nil, "--catalog", "cmd/planctl/servetest/testdata/slow.json", "--shutdown-timeout", "100ms")
	c := httpClient(t, s.url)
	progress := make(chan struct{}, 8)
	c.OnNotification(func(n mcp.JSONRPCNotification) { progress <- struct{}{} })
	resc := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := callPlan(context.Background(), c, slowPlan, "p")
		if err != nil {
			t.Error(err)
		}
		resc <- res
	}()
	<-progress
	s.cmd.Process.Signal(syscall.SIGTERM)
	res := <-resc
	want := `"wait":{"status":"error","error":"the server is shutting down: tool \"slow\" was stopped after --shutdown-timeout; send the plan again"}`
	if res == nil || !strings.Contains(text(t, res), want) {
		t.Errorf("answer: %+v", res)
	}
	if err := <-s.done; err != nil {
		t.Errorf("exit: %v\n%s", err, s.stderr.String())
	}
	s.done <- nil // for the cleanup
}

func waitALittle() { time.Sleep(10 * time.Millisecond) }

// TestCommandLine: bad flags are usage errors (exit 2) with a message that
// names the fix; an unreadable catalog is fatal (exit 3).
func TestCommandLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve", "--http", "nonsense"}, 2, `--http "nonsense": the port must be a number from 0 to 65535`},
		{[]string{"serve", "--stateless"}, 2, "--stateless, --auth-token, --no-auth, --allow-origin and --allow-host are for --http ADDR"},
		{[]string{"serve", "--stdio", "--http", ":0"}, 2, "choose one transport"},
		{[]string{"serve", "--max-steps", "0"}, 2, "--max-body and --max-steps must be positive"},
		{[]string{"serve", "extra"}, 2, "takes no arguments"},
		{[]string{"serve", "--catalog", "/nonexistent/tools.json"}, 3, "cannot read the catalog"},
	} {
		cmd := clitest.Command(binary, tc.args...)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("planctl %v: exit %d, %q; want exit %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
	}
}

// TestProtocolVersions: the mcp-go client pinned to each protocol version
// mcp-go negotiates (2026-07-28 without sessions, 2025-11-25 with the
// initialize handshake) runs a plan with progress over stdio and HTTP.
func TestProtocolVersions(t *testing.T) {
	t.Parallel()
	plan, _ := os.ReadFile(filepath.Join(root, "samples", "backup.json"))
	s := startHTTP(t, nil, "--stateless")
	for _, version := range []string{mcp.ProtocolVersion20260728, mcp.ProtocolVersion20251125} {
		for _, tr := range []string{"stdio", "http"} {
			t.Run(version+"/"+tr, func(t *testing.T) {
				var trans transport.Interface
				if tr == "stdio" {
					trans = transport.NewStdioWithOptions(binary, nil, []string{"serve"},
						transport.WithCommandStderrWriter(io.Discard),
						transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
							cmd := clitest.CommandContext(ctx, command, args...)
							cmd.Dir = root
							return cmd, nil
						}))
				} else {
					h, err := transport.NewStreamableHTTP(s.url, transport.WithHTTPHeaders(auth(s.url)))
					if err != nil {
						t.Fatal(err)
					}
					trans = h
				}
				c := client.NewClient(trans, client.WithProtocolVersion(version))
				ctx := context.Background()
				if err := c.Start(ctx); err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				req := mcp.InitializeRequest{}
				req.Params.ProtocolVersion = version
				req.Params.ClientInfo = mcp.Implementation{Name: "servetest", Version: "1"}
				res, err := c.Initialize(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if res.ProtocolVersion != version {
					t.Errorf("negotiated %s", res.ProtocolVersion)
				}
				notes := make(chan struct{}, 8)
				c.OnNotification(func(n mcp.JSONRPCNotification) {
					if n.Method == "notifications/progress" {
						notes <- struct{}{}
					}
				})
				out, err := callPlan(ctx, c, plan, "v")
				if err != nil || !strings.HasPrefix(text(t, out), `{"status":"completed"`) {
					t.Fatalf("%v %+v", err, out)
				}
				<-notes
				<-notes
			})
		}
	}
}

// TestLogFile: with --log the log goes to the file; stdout carries only MCP
// messages and stderr stays empty.
func TestLogFile(t *testing.T) {
	t.Parallel()
	logPath := filepath.Join(t.TempDir(), "serve.log")
	cmd := clitest.Command(binary, "serve", "--log", logPath)
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"e","tool":"echo","args":{"value":"secret-value"}}]}}}
`)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("stdout has a line that is not a JSON-RPC message: %q", line)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "msg=request method=initialize") || strings.Contains(string(log), "secret-value") {
		t.Errorf("log:\n%s", log)
	}
}

// Requests piped in, input closed at once: every request is still
// answered before serve exits, as a shell user trying
// `printf '...' | planctl serve` expects. A plan that finishes at once
// completes; plans still running half a second after the end of input are
// stopped at their running step (closing stdin is how an MCP client shuts
// its server down), and the ones mcp-go had not started yet (it runs five
// at a time) are refused: each is answered.
func TestStdinClosedStillAnswered(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":1}}]}}}`,
	}
	const slow = 12
	for id := 3; id < 3+slow; id++ {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":1}},{"id":"r","tool":"generate_report","args":{"database":"x"}}]}}}`)
	}
	cmd := clitest.Command(binary, "serve")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	answers := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(line), &m) != nil {
			t.Fatalf("not JSON-RPC: %s", line)
		}
		answers[string(m.ID)] = line
	}
	if len(answers) != 2+slow || answers["1"] == "" {
		t.Fatalf("%d answers, want one to each of the %d requests:\n%s", len(answers), 2+slow, out)
	}
	if !strings.Contains(answers["2"], `"structuredContent":{"status":"completed"`) {
		t.Errorf("the plan that finishes at once: %s", answers["2"])
	}
	stopped := `"structuredContent":{"status":"partial","steps":{"a":{"status":"ok","result":{"value":1}},"r":{"status":"error","error":"the server is shutting down: tool \"generate_report\" was stopped because standard input closed (the client shut the server down); send the plan again"}}}`
	refused := `"structuredContent":{"error":"the server is shutting down and takes no new plans`
	n := 0
	for id := 3; id < 3+slow; id++ {
		a := answers[strconv.Itoa(id)]
		switch {
		case strings.Contains(a, stopped):
			n++
		case !strings.Contains(a, refused):
			t.Errorf("slow plan %d: neither stopped nor refused:\n%s", id, a)
		}
	}
	if n == 0 {
		t.Errorf("no slow plan was stopped at its running step:\n%s", out)
	}
}

// TestStdinClosedCancelsPlan: a client that closes serve's standard input
// while a plan waits on a slow tool has shut the server down (MCP's stdio
// transport): the plan is cancelled at once, answered, and serve exits 0,
// instead of waiting for the step timeout (60 s here).
func TestStdinClosedCancelsPlan(t *testing.T) {
	t.Parallel()
	slowPlan, _ := os.ReadFile("testdata/slow-plan.json")
	cmd := clitest.Command(binary, "serve", "--catalog", "cmd/planctl/servetest/testdata/slow.json")
	cmd.Dir = root
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	stdin, stdout := clitest.Pipes(t, cmd)
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// until reads stdout up to a line holding s; a minute bounds it (a
	// guard against a hang, not a timing assertion).
	until := func(s string) string {
		t.Helper()
		guard := time.NewTimer(time.Minute)
		defer guard.Stop()
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("stdout ended before a line with %s\n%s", s, stderr.String())
				}
				if strings.Contains(line, s) {
					return line
				}
			case <-guard.C:
				t.Fatalf("no line with %s on stdout within a minute\n%s", s, stderr.String())
			}
		}
	}
	compact := &bytes.Buffer{}
	if err := json.Compact(compact, slowPlan); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"closer","version":"1"}}}`+"\n")
	until(`{"jsonrpc":"2.0","id":1,"result":`)
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_plan","arguments":`+compact.String()+`,"_meta":{"progressToken":"p"}}}`+"\n")
	// Step first's progress: the plan is past it, in step wait (an hour).
	until(`"message":"step first (fast) ok"`)
	closed := time.Now()
	stdin.Close()
	answer := until(`{"jsonrpc":"2.0","id":2,`)
	for range lines { // to the end of stdout, so that Wait may close it
	}
	err := cmd.Wait()
	took := time.Since(closed)
	if err != nil {
		t.Errorf("serve after stdin closed: %v\n%s", err, stderr.String())
	}
	want := `"wait":{"status":"error","error":"the server is shutting down: tool \"slow\" was stopped because standard input closed (the client shut the server down); send the plan again"}`
	if !strings.Contains(answer, want) {
		t.Errorf("the answer lacks %s:\n%s\n%s", want, answer, stderr.String())
	}
	if !strings.Contains(stderr.String(), "status=partial ran=1") {
		t.Errorf("the log does not show the plan ending after step first:\n%s", stderr.String())
	}
	// The plan is cancelled within a second of the end of input; the bound
	// leaves room for a loaded machine, far below the step timeout that
	// ended it before.
	if took > 5*time.Second {
		t.Errorf("serve exited %s after stdin closed, want within a second (5 s allowed for a loaded machine)\n%s", took, stderr.String())
	}
}
