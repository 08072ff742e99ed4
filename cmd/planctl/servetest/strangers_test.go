package servetest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// The flood's size: a short one by default (CI runs it), the attack
// round's size with -flood-conns 20000.
var (
	floodConns  = flag.Int("flood-conns", 3000, "TestStrangersAreCheap: unauthenticated connections to open")
	floodHeader = flag.Int("flood-header", 15<<10, "TestStrangersAreCheap: bytes of header lines a connection sends")
	floodAtOnce = flag.Int("flood-at-once", 1500, "TestStrangersAreCheap: how many of them are open at once (above --max-conns's 1,024, so that some are shed)")
)

// floodPeak is the most memory the server may hold during the flood
// (docs/security.md).
const floodPeak = 256 << 20

// floodAS is the address-space cap the server runs under, as in the
// attack round: Go and cgo reserve over 2 GiB of address space (VmSize)
// at start, little of it used, so a cap of 1 GiB stops it starting and
// one of 2 GiB stops it at about 150 MiB of heap.
const floodAS = 4 << 30

// floodGuard bounds a wait that only a bug makes long (a connection the
// server keeps): the test fails saying so instead of hanging.
const floodGuard = 60 * time.Second

// startCapped starts `planctl serve --http 127.0.0.1:0 args...` under
// prlimit --as=floodAS (prlimit execs planctl: the pid is planctl's).
func startCapped(t *testing.T, args ...string) *server {
	t.Helper()
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit (util-linux): the server cannot be run under an address-space cap")
	}
	return startHTTPWith(t, []string{"prlimit", fmt.Sprintf("--as=%d", floodAS), "--", binary}, "127.0.0.1:0", nil, args...)
}

// A flood of unauthenticated connections, each with headers just under
// the bound (or far over it) and 10 of a declared 200 body bytes, costs
// the server a bounded amount: every connection is answered or shed and
// closed by the server, a client with the token is answered throughout,
// and the server's peak memory stays under floodPeak while it runs
// under an address-space cap.
func TestStrangersAreCheap(t *testing.T) {
	t.Parallel() // most of its time is waiting out ReadHeaderTimeout
	s := startCapped(t, "--stateless")
	addr := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp")

	var fill strings.Builder
	for i := 0; fill.Len() < *floodHeader; i++ {
		fmt.Fprintf(&fill, "X-Pad-%d: %s\r\n", i, strings.Repeat("p", 200))
	}
	under := []byte(fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"jsonrpc\"", addr, fill.String()))
	// Headers that never end: held until shed or ReadHeaderTimeout.
	endless := []byte(fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\n%s", addr, fill.String()))
	over := []byte(fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\n%s%s", addr, strings.Repeat(fill.String(), 64), "Content-Length: 200\r\n\r\n{\"jsonrpc\""))

	var outcomes sync.Map // outcome -> *atomic.Int64
	count := func(o string) {
		v, _ := outcomes.LoadOrStore(o, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range *floodAtOnce {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(*floodConns); i = next.Add(1) {
				req := under
				switch i % 10 {
				case 0:
					req = over // a megabyte of header lines
				case 1, 2, 3:
					req = endless
				}
				count(stranger(addr, req))
			}
		}()
	}
	floodDone := make(chan struct{})
	go func() { wg.Wait(); close(floodDone) }()
	// The server's open descriptors, sampled while the flood runs.
	fds := make(chan int, 1)
	go func() {
		most := 0
		dir := fmt.Sprintf("/proc/%d/fd", s.cmd.Process.Pid)
		for {
			if ents, err := os.ReadDir(dir); err == nil {
				most = max(most, len(ents))
			}
			select {
			case <-floodDone:
				fds <- most
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()

	// A client with the token keeps sending plans while the flood runs.
	// A connection of its that the server had not read a byte of when a
	// thousand newer ones arrived may be shed as a stranger's would: the
	// client sees it closed with no answer (nothing ran) and sends again,
	// as MCP clients do; that is counted, and bounded.
	c := &http.Client{Timeout: floodGuard}
	var took []time.Duration
	retries := 0
	plan := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"b","tool":"create_backup","args":{"database":"prod"}}]}}}`
	for done := false; !done; {
		select {
		case <-floodDone:
			done = true // one more plan after the flood
		default:
		}
		start := time.Now()
		var resp *http.Response
		for try := 1; ; try++ {
			req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(plan))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
			req.Header.Set("Authorization", "Bearer "+s.token)
			var err error
			if resp, err = c.Do(req); err == nil {
				break
			}
			if try == 3 || !(errors.Is(err, io.EOF) || isReset(err)) {
				t.Fatalf("a client with the token was not answered during the flood (try %d): %v\n%s", try, err, tail(s.stderr.String()))
			}
			retries++
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took = append(took, time.Since(start))
		if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`completed`)) {
			t.Fatalf("a plan during the flood: %d %s", resp.StatusCode, b)
		}
	}
	var summary []string
	outcomes.Range(func(k, v any) bool {
		summary = append(summary, fmt.Sprintf("%s: %d", k, v.(*atomic.Int64).Load()))
		return true
	})
	slices.Sort(summary)
	slices.Sort(took)
	peak := peakRSS(t, s)
	mostFDs := <-fds
	t.Logf("%d connections (%d at once): %s; %d plans answered meanwhile (%d sent again), slowest %v, median %v; server peak %d MiB, at most %d descriptors open",
		*floodConns, *floodAtOnce, strings.Join(summary, ", "), len(took), retries, took[len(took)-1], took[len(took)/2], peak>>20, mostFDs)
	if v, ok := outcomes.Load("kept"); ok && v.(*atomic.Int64).Load() > 0 {
		t.Errorf("the server kept connections open after answering or shedding them: %s", strings.Join(summary, ", "))
	}
	if peak > floodPeak {
		t.Errorf("the server's peak memory is %d MiB, over the %d MiB documented", peak>>20, floodPeak>>20)
	}
	// A closed connection's descriptor goes once its goroutine wakes:
	// under load a few dozen more are open for a moment, within the 128
	// serve keeps beside --max-conns.
	if mostFDs > 1024+128 {
		t.Errorf("the server held %d descriptors, over --max-conns's 1,024 and the 128 kept beside it", mostFDs)
	}
	if !strings.Contains(s.stderr.String(), "connections shed") {
		t.Errorf("more connections than --max-conns at once, but none shed:\n%s", tail(s.stderr.String()))
	}
}

// stranger sends req (no token, a partial body) on a connection of its
// own and says what came back: "401" or "431" and the server's close,
// "closed" (closed or reset with no answer: shed, or past
// ReadHeaderTimeout), or "kept" (still open after floodGuard: the server
// neither answered nor closed).
func stranger(addr string, req []byte) string {
	c, err := net.DialTimeout("tcp", addr, floodGuard)
	if err != nil {
		return "dial failed"
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(floodGuard))
	c.Write(req) // the server may answer or shed before it reads all
	var got bytes.Buffer
	_, err = io.Copy(&got, c)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "kept"
	case bytes.HasPrefix(got.Bytes(), []byte("HTTP/1.1 401")):
		return "401"
	case bytes.HasPrefix(got.Bytes(), []byte("HTTP/1.1 431")):
		return "431"
	case got.Len() == 0:
		return "closed"
	}
	return "other: " + strings.SplitN(got.String(), "\r\n", 2)[0]
}

// tail is the end of a server's stderr, or where it crashed.
// isReset reports whether err says the server closed the connection
// before it read the request: a reset, or net/http's "server closed idle
// connection" for a kept-alive connection shed while idle (the transport
// retries that only for idempotent requests, and a plan is a POST).
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || strings.Contains(err.Error(), "server closed idle connection")
}

func tail(s string) string {
	if i := strings.Index(s, "fatal error"); i >= 0 {
		return s[i:min(len(s), i+3000)]
	}
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

// sessionFrom sends body to s from the loopback address ip, with the
// token and session id sid (if any), returning the status and the
// session id of the answer.
func sessionFrom(t *testing.T, s *server, ip, sid, body string) (int, string) {
	t.Helper()
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+s.token)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := (&http.Client{Transport: tr, Timeout: floodGuard}).Do(req)
	if err != nil {
		t.Fatalf("the server is down: %v\n%s", err, tail(s.stderr.String()))
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

// One token holder's thousand initializes end only its own sessions:
// another client's session lives on, and a third client still gets one
// (before, they locked everyone out with 503 for --session-idle-timeout).
func TestSessionsFairUnderFlood(t *testing.T) {
	s := startCapped(t, "--max-sessions", "20", "--max-client-sessions", "5")
	code, mine := sessionFrom(t, s, "127.0.0.1", "", initBodyText)
	if code != 200 || mine == "" {
		t.Fatalf("initialize: %d", code)
	}
	for i := range 1000 {
		if code, _ := sessionFrom(t, s, "127.0.0.2", "", initBodyText); code != 200 {
			t.Fatalf("initialize %d of the greedy client: %d", i, code)
		}
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if code, _ := sessionFrom(t, s, "127.0.0.1", mine, ping); code != 200 {
		t.Errorf("another client's session after 1,000 initializes of a greedy one: %d, want it alive", code)
	}
	if code, id := sessionFrom(t, s, "127.0.0.3", "", initBodyText); code != 200 || id == "" {
		t.Errorf("a new client after 1,000 initializes of a greedy one: %d", code)
	}
	// The server logs each eviction before it answers, but its stderr
	// reaches this test through a pipe and a copying goroutine: wait for
	// the lines rather than count what has arrived so far.
	evicted := func() int { return strings.Count(s.stderr.String(), "least recently used session made room") }
	for deadline := time.Now().Add(10 * time.Second); evicted() < 995 && time.Now().Before(deadline); {
		waitALittle()
	}
	if n := evicted(); n != 995 {
		t.Errorf("%d sessions ended to make room, want the greedy client's 995 (1,000 initializes, 5 kept)", n)
	}
}

// --max-conns fits the descriptor limit: the default is lowered, with a
// warning, and a value given that does not fit is refused.
func TestMaxConnsFitsDescriptors(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit (util-linux)")
	}
	s := startHTTPWith(t, []string{"prlimit", "--nofile=512", "--", binary}, "127.0.0.1:0", nil)
	if !strings.Contains(s.stderr.String(), "--max-conns lowered from 1024 to 384") {
		t.Errorf("under ulimit -n 512:\n%s", s.stderr.String())
	}
	cmd := clitest.Command("prlimit", "--nofile=512", "--", binary, "serve", "--http", "127.0.0.1:0", "--max-conns", "1000")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "ulimit -n") {
		t.Errorf("--max-conns 1000 under ulimit -n 512: %v %s", err, out)
	}
}
