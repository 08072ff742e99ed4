// Package soaktest holds the soak test of planctl serve: the built binary,
// serving Streamable HTTP, under a steady mixed load for a set time, with
// its resident memory and goroutines sampled. It runs only when asked:
//
//	go test ./cmd/planctl/soaktest -run Soak -soak 60s -v
//	go test ./cmd/planctl/soaktest -run Soak -soak 10m -timeout 20m -v
package soaktest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

var (
	soakFor     = flag.Duration("soak", 0, "run the soak test for this long (0: skip it)")
	soakWorkers = flag.Int("soak-workers", 4, "concurrent clients of the soak test")
	soakEvery   = flag.Duration("soak-every", 0, "sample the server this often (default: the duration / 30, at least 1s)")
	// sessionIdle ends abandoned sessions well within the soak (0: never,
	// to see what they cost).
	sessionIdle = flag.Duration("soak-session-idle", 10*time.Second, "the server's --session-idle-timeout")
)

var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	if *soakFor <= 0 {
		// Nothing to build: the test skips.
		os.Exit(m.Run())
	}
	clitest.Main(m, func(dir string) { binary = filepath.Join(dir, "planctl") }, "planctl=..")
}

// The plans of the mix, against testdata/soak.json.
const (
	goodPlan = `{"steps": [
  {"id": "a", "tool": "fast", "args": {"n": 1, "note": "soak"}},
  {"id": "b", "tool": "medium", "args": {"n": {"output_by_reference": {"a": ["n"]}}}},
  {"id": "c", "tool": "fast", "args": {"n": {"output_by_reference": {"b": ["n"]}}, "note": {"output_by_reference": {"a": ["note"]}}}},
  {"id": "d", "tool": "flaky", "args": {"n": 2}},
  {"id": "e", "tool": "fast", "args": {"n": {"output_by_reference": {"d": ["n"]}}}}]}`
	// Refused by preflight: a reference to a step that does not exist.
	badPlan = `{"steps": [
  {"id": "a", "tool": "fast", "args": {"n": 1}},
  {"id": "b", "tool": "medium", "args": {"n": {"output_by_reference": {"nope": ["n"]}}}}]}`
	// Runs, and fails at its second step: the tool's own error.
	toolErrorPlan = `{"steps": [
  {"id": "a", "tool": "fast", "args": {"n": 0}},
  {"id": "b", "tool": "flaky", "args": {"n": {"output_by_reference": {"a": ["n"]}}}},
  {"id": "c", "tool": "fast", "args": {"n": 3}}]}`
	// The slow tool passes --step-timeout.
	timeoutPlan = `{"steps": [
  {"id": "a", "tool": "fast", "args": {"n": 1}},
  {"id": "b", "tool": "slow", "args": {"n": {"output_by_reference": {"a": ["n"]}}}},
  {"id": "c", "tool": "fast", "args": {"n": 3}}]}`
	// Ten medium steps: the client gives up in the middle.
	cancelPlan = `{"steps": [
  {"id": "s0", "tool": "medium", "args": {"n": 0}},
  {"id": "s1", "tool": "medium", "args": {"n": 1}},
  {"id": "s2", "tool": "medium", "args": {"n": 2}},
  {"id": "s3", "tool": "medium", "args": {"n": 3}},
  {"id": "s4", "tool": "medium", "args": {"n": 4}},
  {"id": "s5", "tool": "slow", "args": {"n": 5}}]}`
)

// stepTimeout is far above the medium tool's 20ms, so that a loaded
// machine never times out a good plan, and ends the slow tool's hour.
const stepTimeout = 2 * time.Second

type sample struct {
	at         time.Duration
	rssKB      int64
	goroutines int
	requests   int64
}

// tally counts the outcomes of one kind of request.
type tally struct {
	mu  sync.Mutex
	ok  map[string]int
	bad map[string]int // unexpected outcomes, by description
}

func (t *tally) add(kind string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil {
		t.ok[kind]++
		return
	}
	msg := kind + ": " + err.Error()
	if len(msg) > 300 {
		msg = msg[:300]
	}
	t.bad[msg]++
}

func TestSoak(t *testing.T) {
	if *soakFor <= 0 {
		t.Skip("the soak test runs only when asked: go test ./cmd/planctl/soaktest -soak 60s")
	}
	every := *soakEvery
	if every <= 0 {
		every = max(time.Second, *soakFor/30)
	}
	srv := start(t)
	t.Logf("serve pid %d at %s, debug %s; %d workers for %s, sampling every %s",
		srv.cmd.Process.Pid, srv.url, srv.debug, *soakWorkers, *soakFor, every)

	base := srv.sample(0, 0)
	var requests atomic.Int64
	res := &tally{ok: map[string]int{}, bad: map[string]int{}}
	ctx, stop := context.WithTimeout(context.Background(), *soakFor)
	defer stop()
	var wg sync.WaitGroup
	for w := 0; w < *soakWorkers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			worker(ctx, srv, w, res, &requests)
		}(w)
	}

	began := time.Now()
	samples := []sample{base}
	tick := time.NewTicker(every)
	for ctx.Err() == nil {
		select {
		case <-tick.C:
			samples = append(samples, srv.sample(time.Since(began), requests.Load()))
		case <-ctx.Done():
		}
	}
	tick.Stop()
	wg.Wait()

	// At rest, with every client gone, the server is back where it began.
	// (The raw requests' keep-alive connections are closed first: each
	// holds a goroutine in the server until it idles out.)
	http.DefaultClient.CloseIdleConnections()
	var rest sample
	for i := 0; i < 60; i++ {
		time.Sleep(500 * time.Millisecond)
		if rest = srv.sample(time.Since(began), requests.Load()); rest.goroutines <= base.goroutines+2 {
			break
		}
	}

	var tbl strings.Builder
	fmt.Fprintf(&tbl, "%8s  %8s  %10s  %9s\n", "t", "RSS MB", "goroutines", "requests")
	for _, s := range samples {
		fmt.Fprintf(&tbl, "%8s  %8.1f  %10d  %9d\n", s.at.Round(time.Second), float64(s.rssKB)/1024, s.goroutines, s.requests)
	}
	fmt.Fprintf(&tbl, "%8s  %8.1f  %10d  %9d  (at rest, after the load)\n", "rest", float64(rest.rssKB)/1024, rest.goroutines, rest.requests)
	var kinds []string
	for k := range res.ok {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	fmt.Fprintf(&tbl, "outcomes as expected:")
	for _, k := range kinds {
		fmt.Fprintf(&tbl, " %s %d,", k, res.ok[k])
	}
	fmt.Fprintf(&tbl, " in %s\n", *soakFor)
	fmt.Print(tbl.String())

	for msg, n := range res.bad {
		t.Errorf("%d× unexpected outcome: %s", n, msg)
	}
	for _, k := range []string{"good", "bad", "tool-error", "timeout", "cancel", "session", "abandon", "forbidden", "garbage"} {
		if res.ok[k] == 0 {
			t.Errorf("no %q request went as expected in %s", k, *soakFor)
		}
	}
	if len(samples) < 7 {
		t.Fatalf("only %d samples: soak for longer or sample more often", len(samples))
	}
	// Flat: the last third of the samples against the middle third (the
	// first third warms up), with generous slack. A leak check, not a
	// timing assertion.
	n := len(samples)
	mid, last := samples[n/3:2*n/3], samples[2*n/3:]
	meanRSS := func(ss []sample) float64 {
		var s float64
		for _, x := range ss {
			s += float64(x.rssKB)
		}
		return s / float64(len(ss))
	}
	meanG := func(ss []sample) float64 {
		var s float64
		for _, x := range ss {
			s += float64(x.goroutines)
		}
		return s / float64(len(ss))
	}
	if m, l := meanRSS(mid), meanRSS(last); l > m*1.25+8*1024 {
		t.Errorf("RSS grows: %.1f MB on average in the middle third, %.1f MB in the last", m/1024, l/1024)
	}
	if m, l := meanG(mid), meanG(last); l > m*1.25+10 {
		t.Errorf("goroutines grow: %.1f on average in the middle third, %.1f in the last", m, l)
	}
	if rest.goroutines > base.goroutines+2 {
		t.Errorf("at rest the server has %d goroutines, %d before the load: goroutines are left behind", rest.goroutines, base.goroutines)
	}
}

// worker sends a steady mix of requests until ctx ends.
func worker(ctx context.Context, srv *server, w int, res *tally, requests *atomic.Int64) {
	rng := rand.New(rand.NewSource(int64(w) + 1))
	var c *client.Client
	calls := 0
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	for i := 0; ctx.Err() == nil; i++ {
		// A new session every 25 plans: sessions come and go.
		if c == nil || calls >= 25 {
			if c != nil {
				c.Close()
			}
			var err error
			if c, err = newClient(ctx, srv.url); err != nil {
				if ctx.Err() == nil {
					res.add("session", err)
				}
				c = nil
				continue
			}
			res.add("session", nil)
			calls = 0
		}
		calls++
		requests.Add(1)
		var kind string
		var err error
		switch r := rng.Intn(40); {
		case r < 16:
			kind, err = "good", expect(ctx, c, goodPlan, "completed", "")
		case r < 22:
			kind, err = "bad", expect(ctx, c, badPlan, "", "nope")
		case r < 26:
			kind, err = "tool-error", expect(ctx, c, toolErrorPlan, "partial", "flaky: n must not be 0")
		case r < 30:
			kind, err = "timeout", expect(ctx, c, timeoutPlan, "partial", "timed out")
		case r < 35:
			kind, err = "cancel", cancelMidPlan(ctx, c, time.Duration(5+rng.Intn(80))*time.Millisecond)
		case r < 37:
			kind, err = "abandon", abandonSession(srv.url)
		case r < 38:
			kind, err = "forbidden", rawPost(srv.url, "http://evil.example", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, http.StatusForbidden)
		default:
			kind, err = "garbage", rawPost(srv.url, "", `{"jsonrpc": "2.0", "id": 1, "method": `, 0)
		}
		if ctx.Err() != nil && err != nil {
			return // the soak ended in the middle of this request
		}
		res.add(kind, err)
		time.Sleep(time.Duration(5+rng.Intn(10)) * time.Millisecond)
	}
}

func newClient(ctx context.Context, url string) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "soaktest", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func call(ctx context.Context, c *client.Client, planJSON string) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = "execute_plan"
	req.Params.Arguments = json.RawMessage(planJSON)
	return c.CallTool(ctx, req)
}

// expect calls a plan and checks its answer: status, or (status "") a
// refusal whose error contains want.
func expect(ctx context.Context, c *client.Client, planJSON, status, want string) error {
	r, err := call(ctx, c, planJSON)
	if err != nil {
		return err
	}
	if len(r.Content) != 1 {
		return fmt.Errorf("%d content blocks", len(r.Content))
	}
	tc, ok := r.Content[0].(mcp.TextContent)
	if !ok {
		return fmt.Errorf("content %T", r.Content[0])
	}
	var resp struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	if err := json.Unmarshal([]byte(tc.Text), &resp); err != nil {
		return fmt.Errorf("answer is not JSON: %.200s", tc.Text)
	}
	if resp.Status != status || r.IsError != (status == "") || !strings.Contains(tc.Text, want) {
		return fmt.Errorf("answer (isError %v): %.300s", r.IsError, tc.Text)
	}
	return nil
}

// cancelMidPlan gives up on a plan after d; the server must cancel it.
func cancelMidPlan(ctx context.Context, c *client.Client, d time.Duration) error {
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	r, err := call(cctx, c, cancelPlan)
	if err == nil {
		return fmt.Errorf("the plan answered before the client gave up: isError %v", r.IsError)
	}
	if !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "context deadline exceeded") {
		return err
	}
	return nil
}

// abandonSession opens a session and leaves without ending it, as a
// client that dies does.
func abandonSession(url string) error {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak-abandon","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		return fmt.Errorf("initialize: status %d, session %q", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
	}
	return nil
}

// rawPost sends body to the endpoint with no session; want is the status
// expected, or 0 for any 4xx.
func rawPost(url, origin, body string, want int) error {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if want == 0 && resp.StatusCode/100 == 4 || resp.StatusCode == want {
		return nil
	}
	return fmt.Errorf("status %d", resp.StatusCode)
}

type server struct {
	cmd   *exec.Cmd
	url   string
	debug string
	done  chan error
}

var (
	urlLine   = regexp.MustCompile(`serving execute_plan at (http://\S+)`)
	debugLine = regexp.MustCompile(`debug endpoints at (http://\S+)`)
)

// start runs `planctl serve --http 127.0.0.1:0 --debug-addr 127.0.0.1:0`
// on the soak catalog and reads both addresses from its stderr.
func start(t *testing.T) *server {
	t.Helper()
	cmd := clitest.Command(binary, "serve", "--http", "127.0.0.1:0", "--debug-addr", "127.0.0.1:0",
		"--catalog", "testdata/soak.json", "--step-timeout", stepTimeout.String(), "--session-idle-timeout", (*sessionIdle).String(), "--log", os.DevNull,
		"--no-auth") // loopback, and the soak measures serving, not the token check
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	s := &server{cmd: cmd, done: make(chan error, 1)}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait(); pw.Close() }()
	var head bytes.Buffer
	sc := bufio.NewScanner(pr)
	for (s.url == "" || s.debug == "") && sc.Scan() {
		head.WriteString(sc.Text() + "\n")
		if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
			s.url = m[1]
		}
		if m := debugLine.FindStringSubmatch(sc.Text()); m != nil {
			s.debug = m[1]
		}
	}
	go io.Copy(os.Stderr, pr)
	if s.url == "" || s.debug == "" {
		t.Fatalf("planctl serve did not start:\n%s", head.String())
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.done
	})
	return s
}

// sample reads the server's resident memory (VmRSS) and its goroutines.
func (s *server) sample(at time.Duration, requests int64) sample {
	out := sample{at: at, requests: requests, goroutines: -1}
	if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid)); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				out.rssKB, _ = strconv.ParseInt(f[1], 10, 64)
			}
		}
	}
	resp, err := http.Get(s.debug + "vars")
	if err == nil {
		var v struct {
			Goroutines int `json:"goroutines"`
		}
		json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		out.goroutines = v.Goroutines
	}
	return out
}
