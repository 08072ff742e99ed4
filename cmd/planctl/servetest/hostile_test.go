package servetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// What a hostile client or plan could try against serve (plans whose
// results or answers amplify, too many sessions, slow bodies and readers,
// cancelling another caller's plan, weak defaults, secrets in answers and
// logs, closed pipes, requests during shutdown), each against a real
// planctl serve process.

// post sends body to s with its token (and hdr pairs), returning the status,
// the answer and its headers.
func post(t *testing.T, s *server, method, body string, hdr ...string) (int, string, http.Header) {
	t.Helper()
	code, b, h, err := tryPost(s, method, body, hdr...)
	if err != nil {
		t.Fatalf("the server is down: %v\n%s", err, s.stderr.String())
	}
	return code, b, h
}

// tryPost is post for a goroutine other than the test's, which must not
// call t.Fatal: the error is the caller's to report.
func tryPost(s *server, method, body string, hdr ...string) (int, string, http.Header, error) {
	req, _ := http.NewRequest(method, s.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header, nil
}

// One large result echoed by reference step after step is stopped at
// --max-response with a message naming the flag; the steps before it are
// answered, and the server goes on serving with its heap bounded.
func TestAmplificationPlan(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, nil, "--max-response", "4194304", "--debug-addr", "127.0.0.1:0")
	var b strings.Builder
	fmt.Fprintf(&b, `{"steps":[{"id":"s0","tool":"echo","args":{"value":"%s"}}`, strings.Repeat("x", 1<<20))
	for i := 1; i < 1000; i++ {
		fmt.Fprintf(&b, `,{"id":"s%d","tool":"echo","args":{"value":{"output_by_reference":{"s%d":["value"]}}}}`, i, i-1)
	}
	b.WriteString("]}")
	c := httpClient(t, s.url)
	res, err := callPlan(context.Background(), c, []byte(b.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Status string
		Steps  map[string]struct{ Status, Error string }
	}
	if err := json.Unmarshal([]byte(text(t, res)), &resp); err != nil {
		t.Fatal(err)
	}
	failed := resp.Steps[fmt.Sprintf("s%d", len(resp.Steps)-1)]
	if resp.Status != "partial" || len(resp.Steps) < 2 || len(resp.Steps) > 3 || !strings.Contains(failed.Error, "(--max-response)") {
		t.Fatalf("status %s, %d steps, last error %q", resp.Status, len(resp.Steps), failed.Error)
	}
	res, err = callPlan(context.Background(), c, []byte(`{"steps":[{"id":"a","tool":"echo","args":{"value":1}}]}`), nil)
	if err != nil || !strings.Contains(text(t, res), `"completed"`) {
		t.Fatalf("after: %v %+v", err, res)
	}
	// The heap holds a few copies of 4 MiB, not the 1 GB the plan asked for.
	vars := debugVars(t, s)
	if heap := vars.Memstats.HeapInuse; heap > 256<<20 {
		t.Errorf("heap in use %d bytes after the plan", heap)
	}
	// The debug endpoints answer loopback Host names only (DNS rebinding).
	req, _ := http.NewRequest(http.MethodGet, debugLine.FindStringSubmatch(s.stderr.String())[1]+"vars", nil)
	req.Host = "evil.example"
	dresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	dresp.Body.Close()
	if dresp.StatusCode != http.StatusForbidden {
		t.Errorf("--debug-addr with a foreign Host: %d", dresp.StatusCode)
	}
}

// A small plan asking for an answer many times its results: a 900 KB
// string of "x<&>" (19 bytes a character once escaped into the answer's
// text and structuredContent) taken whole by 70 steps. --max-response
// bounds the answer as written, so the server writes a partial answer of
// at most that many bytes, and its memory stays a multiple of it: about
// twice on planctl's direct path, about eight times through mcp-go's
// encoders. Before the answer was counted, this request made a 316 MB
// answer and took the server past 1.1 GB at the default bound.
func TestAnswerAmplificationPlan(t *testing.T) {
	t.Parallel()
	const max = 32 << 20
	var b strings.Builder
	fmt.Fprintf(&b, `{"steps":[{"id":"s0","tool":"echo","args":{"value":"%s"}}`, strings.Repeat("x<&>", 900_000/4))
	for i := 1; i < 70; i++ {
		fmt.Fprintf(&b, `,{"id":"s%d","tool":"echo","args":{"value":{"output_by_reference":{"s0":["value"]}}}}`, i)
	}
	b.WriteString("]}")
	for _, c := range []struct {
		name, meta string
		peak       int64 // measured: 60 MiB and 190-237 MiB
	}{
		{"a plain call (planctl's direct path)", "", 128 << 20},
		{"a call with a progress token (mcp-go's path, server-sent events)", `,"_meta":{"progressToken":1}`, 320 << 20},
	} {
		s := startHTTP(t, nil, "--stateless", "--max-response", strconv.Itoa(max))
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":` + b.String() + c.meta + `}}`
		code, body, _ := post(t, s, http.MethodPost, call, "MCP-Protocol-Version", "2025-11-25")
		final := body
		if i := strings.LastIndex(body, "data: "); i >= 0 {
			final = body[i+len("data: "):] // the events before it are progress
		}
		var answer struct {
			Result struct {
				StructuredContent struct {
					Status string
					Steps  map[string]struct{ Status, Error string }
				}
			}
		}
		if err := json.Unmarshal([]byte(final), &answer); code != http.StatusOK || err != nil {
			t.Fatalf("%s: %d %v: %.300s", c.name, code, err, body)
		}
		resp := answer.Result.StructuredContent
		stopped := resp.Steps[fmt.Sprintf("s%d", len(resp.Steps)-1)]
		if resp.Status != "partial" || len(resp.Steps) < 2 || !strings.Contains(stopped.Error, "the plan's answer would take") {
			t.Fatalf("%s: status %s, %d steps, last error %q", c.name, resp.Status, len(resp.Steps), stopped.Error)
		}
		if len(final) > max+4096 {
			t.Errorf("%s: the answer is %d bytes, over --max-response %d", c.name, len(final), max)
		}
		peak := peakRSS(t, s)
		t.Logf("%s: %d steps answered in %d bytes; the server's peak memory %d MiB", c.name, len(resp.Steps)-1, len(final), peak>>20)
		if peak > c.peak {
			t.Errorf("%s: the server's peak memory is %d MiB for an answer of %d bytes", c.name, peak>>20, len(final))
		}
	}
	// --max-answers bounds the answers of all plans together: with room for
	// less than one of these results, the first step stops, naming it
	// (--max-response is raised past the one result, 8.2 MiB as written).
	s := startHTTP(t, nil, "--stateless", "--max-answers", "4000000", "--max-response", "67108864")
	_, body, _ := post(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":`+b.String()+`}}`, "MCP-Protocol-Version", "2025-11-25")
	if !strings.Contains(body, `step \"s0\" stopped: with the `) || !strings.Contains(body, `it needs next (its arguments, its tool`) || !strings.Contains(body, "(--max-answers)") {
		t.Errorf("--max-answers 4000000: %.400s", body)
	}
}

// peakRSS is the most memory s's process has held (VmHWM).
func peakRSS(t *testing.T, s *server) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in %s", status)
	return 0
}

type runtimeVars struct {
	Goroutines int
	Memstats   struct{ HeapInuse uint64 }
}

func debugVars(t *testing.T, s *server) runtimeVars {
	t.Helper()
	m := debugLine.FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no debug endpoints:\n%s", s.stderr.String())
	}
	resp, err := http.Get(m[1] + "vars")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v runtimeVars
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Sessions are capped (past the cap the least recently used ends), a failed initialize leaves none, client metadata is
// bounded, and only issued ids pass, whatever the protocol version; a
// missing id is 400 and DELETE of an unknown one 404.
func TestSessionLimits(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, nil, "--max-sessions", "2")
	// A failed initialize (its params are not an object) makes no session.
	code, body, hdr := post(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":5}`)
	if !strings.Contains(body, `"error"`) {
		t.Fatalf("bad initialize: %d %s", code, body)
	}
	if id := hdr.Get("Mcp-Session-Id"); id != "" {
		if code, _, _ := post(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Mcp-Session-Id", id); code != 404 {
			t.Errorf("the session of a failed initialize answers %d", code)
		}
	}
	var ids []string
	for range 2 {
		code, body, hdr := post(t, s, http.MethodPost, initBodyText)
		if code != 200 || hdr.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize: %d %s", code, body)
		}
		ids = append(ids, hdr.Get("Mcp-Session-Id"))
	}
	// Past --max-sessions the least recently used session of the client
	// that holds the most (here the only one) ends to make room.
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if code, _, _ := post(t, s, http.MethodPost, ping, "Mcp-Session-Id", ids[1]); code != 200 {
		t.Fatalf("ping: %d", code)
	}
	if code, body, _ := post(t, s, http.MethodPost, initBodyText); code != 200 {
		t.Errorf("past --max-sessions: %d %s", code, body)
	}
	if code, _, _ := post(t, s, http.MethodPost, ping, "Mcp-Session-Id", ids[0]); code != 404 {
		t.Errorf("the least recently used session, past --max-sessions: %d, want it ended (404)", code)
	}
	if code, _, _ := post(t, s, http.MethodDelete, "", "Mcp-Session-Id", ids[1]); code != 200 {
		t.Errorf("DELETE: %d", code)
	}
	if code, body, _ := post(t, s, http.MethodPost, initBodyText); code != 200 {
		t.Errorf("initialize after a DELETE: %d %s", code, body)
	}

	big := strings.Replace(initBodyText, `"version":"1"`, `"version":"`+strings.Repeat("v", 40<<10)+`"`, 1)
	if code, body, _ := post(t, s, http.MethodPost, big); code != 400 || !strings.Contains(body, "client metadata") {
		t.Errorf("40 KB of clientInfo: %d %s", code, body)
	}
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":1}}]}}}`
	modern := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":1}}]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, c := range []struct {
		name, method, body string
		hdr                []string
		want               int
	}{
		{"forged id, 2026-07-28", http.MethodPost, modern, []string{"Mcp-Session-Id", "whatever", "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "execute_plan"}, 404},
		{"forged id, 2025-11-25", http.MethodPost, call, []string{"Mcp-Session-Id", "whatever", "MCP-Protocol-Version", "2025-11-25"}, 404},
		{"missing id", http.MethodPost, call, []string{"MCP-Protocol-Version", "2025-11-25"}, 400},
		{"DELETE unknown", http.MethodDelete, "", []string{"Mcp-Session-Id", "whatever"}, 404},
		{"DELETE ended", http.MethodDelete, "", []string{"Mcp-Session-Id", ids[0]}, 404},
	} {
		if code, body, _ := post(t, s, c.method, c.body, c.hdr...); code != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, code, body, c.want)
		}
	}
}

// Clients that send their body slowly do not take --max-inflight's slots:
// the body is read first.
func TestSlowBodies(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, nil, "--max-inflight", "2")
	addr := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp")
	for range 6 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n{\"jsonrpc\"", addr, s.token)
	}
	// The slow requests are past their headers by now (no sentinel shows
	// it from outside; the requests below are served either way once the
	// body is read before the slot is taken, which is the point).
	for range 3 {
		if code, body, _ := post(t, s, http.MethodPost, initBodyText); code != 200 {
			t.Fatalf("with slow bodies pending: %d %s", code, body)
		}
	}
}

// A notifications/cancelled not tied to the caller's session reaches
// nothing: under --stateless another client's guess of a request id does
// not stop a plan.
func TestCancellationScopedToCaller(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, nil, "--stateless", "--catalog", "cmd/planctl/servetest/testdata/slow.json")
	planJSON, _ := os.ReadFile("testdata/medium-plan.json")
	call := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_plan","arguments":%s}}`, planJSON)
	answer := make(chan string, 1)
	go func() {
		_, body, _ := post(t, s, http.MethodPost, call, "MCP-Protocol-Version", "2025-11-25")
		answer <- body
	}()
	waitFor(t, s.stderr, "step=first tool=fast status=ok")
	for _, id := range []string{"7", `"7"`} {
		code, _, _ := post(t, s, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`}}`, "MCP-Protocol-Version", "2025-11-25")
		if code != http.StatusAccepted {
			t.Errorf("cancellation: %d", code)
		}
	}
	if got := <-answer; !strings.Contains(got, `"structuredContent":{"status":"completed"`) {
		t.Errorf("another client's cancellation stopped the plan: %s", got)
	}
}

// With sessions, a cancellation from another session reaches nothing, and
// one from the plan's own session stops it.
func TestCancellationScopedToSession(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, nil, "--catalog", "cmd/planctl/servetest/testdata/slow.json")
	session := func() string {
		_, body, hdr := post(t, s, http.MethodPost, initBodyText)
		id := hdr.Get("Mcp-Session-Id")
		if id == "" {
			t.Fatalf("initialize: %s", body)
		}
		post(t, s, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", id, "MCP-Protocol-Version", "2025-11-25")
		return id
	}
	mine, other := session(), session()
	run := func(planFile string, id int, cancelFrom string) string {
		planJSON, _ := os.ReadFile(planFile)
		call := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"execute_plan","arguments":%s}}`, id, planJSON)
		answer := make(chan string, 1)
		before := strings.Count(s.stderr.String(), "step=first tool=fast status=ok")
		go func() {
			_, body, _ := post(t, s, http.MethodPost, call, "Mcp-Session-Id", mine, "MCP-Protocol-Version", "2025-11-25")
			answer <- body
		}()
		for strings.Count(s.stderr.String(), "step=first tool=fast status=ok") == before {
			waitALittle()
		}
		post(t, s, http.MethodPost, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, id),
			"Mcp-Session-Id", cancelFrom, "MCP-Protocol-Version", "2025-11-25")
		return <-answer
	}
	// medium-plan's second step takes 200ms: cancelled, it would say so.
	if got := run("testdata/medium-plan.json", 7, other); !strings.Contains(got, `"structuredContent":{"status":"completed"`) {
		t.Errorf("another session's cancellation stopped the plan: %s", got)
	}
	// slow-plan's second step waits an hour: only a cancellation ends it,
	// and a cancelled request gets no answer (its stream ends empty).
	if got := run("testdata/slow-plan.json", 8, mine); strings.Contains(got, `"id":8`) {
		t.Errorf("the session's own cancellation: answered %s", got)
	}
	// The plan's log line is written before its (dropped) answer, and read
	// from the server's stderr a moment later; were the plan not stopped,
	// the test would time out here.
	for !strings.Contains(s.stderr.String(), "step=wait tool=slow status=error") {
		waitALittle()
	}
}

// CORS preflight for an --allow-origin origin is answered without a token;
// a --no-auth server warns on stderr even with --log; an empty or blank token is an
// error; the log file is 0600.
func TestSecureDefaults(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, nil, "--allow-origin", "https://app.example")
	req, _ := http.NewRequest(http.MethodOptions, s.url, nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-session-id")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		!strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "authorization") {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	if !strings.Contains(s.stderr.String(), `"headers":{"Authorization":"Bearer `+s.token+`"}`) {
		t.Errorf("no host config printed:\n%s", s.stderr.String())
	}
	if code, _ := rawPost(t, s.url, "", initBodyText); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}

	log := filepath.Join(t.TempDir(), "serve.log")
	n := startHTTP(t, nil, "--no-auth", "--log", log)
	if !strings.Contains(n.stderr.String(), "planctl: warning: --no-auth") || n.token != "" {
		t.Errorf("--no-auth:\n%s", n.stderr.String())
	}
	httpClient(t, n.url) // no token needed
	if fi, err := os.Stat(log); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("log file: %v %v", fi.Mode(), err)
	}

	for _, c := range []struct {
		env  []string
		args []string
	}{
		{[]string{"PLANCTL_AUTH_TOKEN="}, nil},
		{nil, []string{"--auth-token", ""}},
		// A blank token could never match (the header's is trimmed).
		{[]string{"PLANCTL_AUTH_TOKEN=   "}, nil},
		{nil, []string{"--auth-token", " "}},
		{nil, []string{"--auth-token", "\t"}},
	} {
		cmd := execServe(append([]string{"--http", "127.0.0.1:0"}, c.args...), c.env)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "empty") {
			t.Errorf("%v %v: %v %s", c.env, c.args, err, out)
		}
	}
}

var debugLine = regexp.MustCompile(`debug endpoints at (http://\S+)`)

// execServe is `planctl serve args...` with env added, run from the root.
func execServe(args, env []string) *exec.Cmd {
	cmd := clitest.Command(binary, append([]string{"serve"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// A client that never reads its answer is dropped after --write-timeout,
// and the plan's answer with it.
func TestSlowReader(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, nil, "--stateless", "--write-timeout", "300ms")
	var b strings.Builder
	fmt.Fprintf(&b, `{"steps":[{"id":"s0","tool":"echo","args":{"value":"%s"}}`, strings.Repeat("x", 1<<20))
	for i := 1; i < 8; i++ {
		fmt.Fprintf(&b, `,{"id":"s%d","tool":"echo","args":{"value":{"output_by_reference":{"s%d":["value"]}}}}`, i, i-1)
	}
	b.WriteString("]}")
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":` + b.String() + `}}`
	addr := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", addr, s.token, len(body), body)
	// The request ends (and is logged) only once the server gave up writing.
	waitFor(t, s.stderr, "msg=http method=POST path=/mcp status=200")
	if code, _, _ := post(t, s, http.MethodPost, initBodyText); code != 200 {
		t.Errorf("after: %d", code)
	}
}

// An upstream URL's user info and query values appear nowhere a client or
// the log can read them, even when the upstream goes away mid-serve.
func TestSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	mock := clitest.Command(binary, "mock", "--http", "127.0.0.1:0")
	mock.Dir = root
	mockErr := &syncBuffer{}
	mock.Stderr = mockErr
	if err := mock.Start(); err != nil {
		t.Fatal(err)
	}
	mockDone := make(chan struct{})
	go func() { mock.Wait(); close(mockDone) }()
	t.Cleanup(func() { mock.Process.Kill(); <-mockDone })
	waitFor(t, mockErr, "/mcp")
	m := regexp.MustCompile(`http://(\S+/mcp)`).FindStringSubmatch(mockErr.String())
	secretURL := "http://user:pass-SECRET@" + m[1] + "?api_key=K-SECRET"

	log := filepath.Join(t.TempDir(), "serve.log")
	s := startHTTP(t, nil, "--url", secretURL, "--log", log)
	c := httpClient(t, s.url)
	plan := []byte(`{"steps":[{"id":"a","tool":"echo","args":{"value":1}}]}`)
	res, err := callPlan(context.Background(), c, plan, nil)
	if err != nil || !strings.Contains(text(t, res), `"completed"`) {
		t.Fatalf("through the upstream: %v %+v", err, res)
	}
	mock.Process.Kill()
	<-mockDone
	res, err = callPlan(context.Background(), c, plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := text(t, res)
	if !strings.Contains(got, `"error"`) || !strings.Contains(got, "redacted@") {
		t.Errorf("the step error does not name the (redacted) upstream: %s", got)
	}
	logText, _ := os.ReadFile(log)
	for where, txt := range map[string]string{"answer": got, "stderr": s.stderr.String(), "log": string(logText)} {
		if strings.Contains(txt, "SECRET") {
			t.Errorf("the %s holds a secret:\n%s", where, txt)
		}
	}
}

// A closed stdout (stdio) or stderr (HTTP) pipe stops the server cleanly,
// with its upstream child, instead of killing it by SIGPIPE.
func TestClosedPipes(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"stdio", "http"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pid")
			upstream := fmt.Sprintf(`sh -c 'echo $$ > %s; exec %s mock'`, pidFile, binary)
			args := []string{"serve", "--server", upstream}
			if mode == "http" {
				args = append(args, "--http", "127.0.0.1:0")
			}
			cmd := clitest.Command(binary, args...)
			cmd.Dir = root
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			var url string
			if mode == "http" {
				// The log's last line at the start follows the URL's: the
				// reader goes away after it, else serve may stop on that
				// write, before the request (a reset instead of an answer).
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
						url = m[1]
					}
					if url != "" && strings.Contains(sc.Text(), `msg="serving execute_plan over HTTP"`) {
						break
					}
				}
				if url == "" {
					t.Fatalf("serve logged no URL: %v", sc.Err())
				}
				pipe := pipeOf(cmd.Process.Pid, 2)
				stderr.Close() // the reader of the log goes away
				resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
				if err != nil {
					t.Fatalf("a request after the log's reader went away: %v", err)
				}
				io.Copy(io.Discard, resp.Body) // the server logs it
				resp.Body.Close()
				t.Cleanup(func() {
					if t.Failed() {
						t.Logf("after the request (%s), serve's stderr (%s) was open in: %s", resp.Status, pipe, holders(pipe))
					}
				})
			} else {
				go io.Copy(io.Discard, stderr)
				stdout.Close() // the client stops reading
				io.WriteString(stdin, initBodyText+"\n")
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			var err error
			select {
			case err = <-exited:
			case <-time.After(floodGuard):
				t.Fatalf("serve still running %s after its %s pipe was closed and written to", floodGuard, map[string]string{"stdio": "stdout", "http": "stderr"}[mode])
			}
			if err != nil {
				t.Errorf("serve ended with %v, want a clean exit", err)
			}
			pid, _ := os.ReadFile(pidFile)
			n, _ := strconv.Atoi(strings.TrimSpace(string(pid)))
			if n <= 0 {
				t.Fatalf("no upstream pid: %q", pid)
			}
			for syscall.Kill(n, 0) == nil {
				waitALittle() // the upstream is reaped once it has exited
			}
		})
	}
}

// pipeOf is what /proc says process pid's descriptor fd is ("pipe:[N]").
func pipeOf(pid, fd int) string {
	link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
	return link
}

// holders lists the processes that have target (a pipeOf answer) open:
// a pipe whose reader went away stays open while another process holds
// its read end, and a write to it then blocks instead of failing.
func holders(target string) string {
	var found []string
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			if link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); link == target {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				found = append(found, fmt.Sprintf("pid %d fd %s (%s)", pid, fd.Name(), strings.ReplaceAll(string(cmdline), "\x00", " ")))
			}
		}
	}
	return strings.Join(found, "; ")
}

// The flight recorder: every plan served becomes a 0600 trace (redacted as
// asked, at most --record-max kept); planctl traces lists them newest
// first; planctl debug opens one, replaying its answers, and shows where
// it failed.
func TestFlightRecorder(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "rec")
	s := startHTTP(t, nil, "--record", dir, "--record-max", "2", "--redact", "database")
	// A 2025-11-25 client has a session, which the traces name.
	tr, err := transport.NewStreamableHTTP(s.url, transport.WithHTTPHeaders(auth(s.url)))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	if _, err := c.Initialize(context.Background(), init); err != nil {
		t.Fatal(err)
	}
	tool, _ := os.ReadFile(filepath.Join(root, "samples", "tool-error.json"))
	for _, p := range [][]byte{
		[]byte(`{"steps":[{"id":"a","tool":"echo","args":{"value":1}}]}`),
		[]byte(strings.Replace(string(tool), `"prod"`, `"db-SECRET"`, 1)),
		[]byte(`{"steps":[{"id":"x","tool":"nope","args":{}}]}`),
	} {
		if _, err := callPlan(context.Background(), c, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "plan-*.json"))
	if len(files) != 2 {
		t.Fatalf("--record-max 2 kept %d traces: %v", len(files), files)
	}
	for _, f := range files {
		fi, _ := os.Stat(f)
		b, _ := os.ReadFile(f)
		if fi.Mode().Perm() != 0o600 || strings.Contains(string(b), `"db-SECRET"`) {
			t.Errorf("%s: mode %v, or a redacted value in:\n%s", f, fi.Mode(), b)
		}
	}

	list := planctlOut(t, "traces", dir)
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "refused") || !strings.Contains(lines[1], `tool "nope"`) ||
		!strings.Contains(lines[2], "partial") || !strings.Contains(lines[2], "bad_backup: disk full") || !strings.Contains(lines[2], "mcp-session-") {
		t.Fatalf("planctl traces:\n%s", list)
	}
	partial := strings.Fields(lines[2])
	trace := partial[len(partial)-1]

	// The partial run, opened in the REPL: its answers are replayed, so
	// it fails where it failed, with no tool called.
	out := planctlOut(t, "debug", "--repl", "-x", "continue", "-x", "steps", trace)
	if !strings.Contains(out, "bad_backup (create_backup): error: disk full") || !regexp.MustCompile(`bad_backup\s+create_backup\s+error`).MatchString(out) {
		t.Errorf("planctl debug --repl TRACE:\n%s", out)
	}
}

// While running plans drain after SIGTERM, a new request is answered (a
// new plan: "shutting down, send it again"), not refused at the socket.
func TestShutdownAnswersNewRequests(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, nil, "--stateless", "--catalog", "cmd/planctl/servetest/testdata/slow.json", "--shutdown-timeout", "1m")
	planJSON, _ := os.ReadFile("testdata/slow-plan.json")
	call := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":%s}}`, planJSON)
	go http.DefaultClient.Do(func() *http.Request {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(call))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+s.token)
		return req
	}())
	waitFor(t, s.stderr, "step=first tool=fast status=ok")
	s.cmd.Process.Signal(syscall.SIGTERM)
	waitFor(t, s.stderr, "shutting down")
	code, body, _ := post(t, s, http.MethodPost, strings.Replace(call, `"id":1`, `"id":2`, 1), "MCP-Protocol-Version", "2025-11-25")
	if code != 200 || !strings.Contains(body, "shutting down and takes no new plans") {
		t.Errorf("a plan sent while draining: %d %s", code, body)
	}
}
