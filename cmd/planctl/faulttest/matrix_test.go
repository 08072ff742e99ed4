package faulttest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// The drivers, the matrix's columns.
const (
	run        = "run"
	repl       = "repl"        // debug --repl through a pipe
	serveHTTP  = "serve-http"  // serve --http, raw HTTP requests
	serveStdio = "serve-stdio" // serve over stdin/stdout
)

var drivers = []string{run, repl, serveHTTP, serveStdio}

// maxResult is the --max-result every cell runs with: 16 MiB, below the
// 50 MB tool (the default, 64 MiB, lets the debugger show such a result).
const maxResult = "16777216"

// cell is one row of the matrix: a fault, and what each driver must show.
type cell struct {
	fault string
	// A tool or upstream fault: step "x" of faultPlan calls tool, from the
	// mock catalog (mock) or the broken MCP server.
	tool    string
	mock    bool
	timeout string // --step-timeout
	// want is in the faulty step's error (or, with ok, its result).
	want string
	ok   bool // not an error: the step succeeds with want in its result
	// custom drives a client fault instead of faultPlan.
	custom func(t *testing.T, driver string)
	// na says why the cell does not apply to a driver.
	na map[string]string
	// long, when set, says why the cell is long: it runs only with
	// clitest.LongEnv set (.ci/run sets it).
	long string
}

var matrix = []cell{
	// Tool faults.
	{fault: "tool errors", tool: "fails", want: `"error":"the disk is full"`},
	{fault: "tool panics", tool: "boom", mock: true, want: `tool \"boom\" panicked: boom: simulated panic in a tool`},
	{fault: "tool sleeps past the step timeout", tool: "slow", timeout: "300ms", want: `step \"x\" timed out after 300ms: tool \"slow\" did not answer within the step timeout (--step-timeout)`},
	{fault: "tool returns 50 MB", tool: "big", long: "50 MB through each driver", want: `tool \"big\" returned an answer of more than 34603008 bytes (33.0 MiB), more than the limit of 16777216 bytes (16.0 MiB) on one result (--max-result)`},
	{fault: "tool returns invalid UTF-8", tool: "badutf8", want: `tool \"badutf8\" returned a result that is not valid UTF-8 (byte 0xe9 at offset 12): MCP results must be UTF-8 text`},
	{fault: "tool returns non-JSON text", tool: "text", ok: true, want: `"x":{"status":"ok","result":"hello, plan"}`},
	// Upstream faults (plan/upstream/testdata/brokenserver).
	{fault: "upstream exits mid-call", tool: "crash", want: `upstream server exited: status 3; its stderr ended with: boom: simulated crash`},
	{fault: "upstream closes stdout", tool: "closeout", want: `upstream server closed its stdout but was still running, so it can answer nothing more; planctl stopped it`},
	{fault: "upstream writes garbage", tool: "garbage", want: `upstream server wrote something that is not JSON-RPC on stdout: \"Traceback (most recent call last): not JSON\"`},
	{fault: "upstream stops answering", tool: "hang", timeout: "300ms", want: `step \"x\" timed out after 300ms: tool \"hang\" did not answer within the step timeout (--step-timeout)`},
	// Client faults.
	{fault: "client disconnects mid-plan", custom: disconnect, na: map[string]string{
		repl: "the REPL reads its next command only once a step has ended; end of input at the prompt ends the session (quit)",
	}},
	{fault: "client sends 100 MB", custom: hugeInput, na: map[string]string{
		serveStdio: "one trusted client, the parent process, on a pipe; --max-body is for HTTP",
	}},
	{fault: "client sends 10,000 requests at once", custom: flood, na: map[string]string{
		run:        "one plan per process",
		repl:       "one command at a time",
		serveStdio: "one client on a pipe, which mcp-go reads one message at a time",
	}},
	{fault: "client sends a plan nested 10,000 deep", custom: deepNesting},
}

// TestFaultMatrix runs every cell: TestFaultMatrix/<fault>/<driver>.
func TestFaultMatrix(t *testing.T) {
	for _, c := range matrix {
		c := c
		t.Run(strings.ReplaceAll(c.fault, " ", "_"), func(t *testing.T) {
			for _, d := range drivers {
				d := d
				t.Run(d, func(t *testing.T) {
					if why, ok := c.na[d]; ok {
						t.Skip("does not apply: " + why)
					}
					if c.long != "" {
						clitest.Long(t, c.long)
					}
					// Each cell has processes, files and an upstream of its own.
					t.Parallel()
					if c.custom != nil {
						c.custom(t, d)
						return
					}
					toolFault(t, d, c)
				})
			}
		})
	}
}

func (c cell) source(t *testing.T) source {
	if c.mock {
		return mockSource()
	}
	return brokenSource(t)
}

func (c cell) stepTimeout() string {
	if c.timeout != "" {
		return c.timeout
	}
	return "2m"
}

// checkResponse: the faulty step's error (or result) is there, the step
// before it kept, the step after it not run.
func (c cell) checkResponse(t *testing.T, resp string) {
	t.Helper()
	if !strings.Contains(resp, c.want) {
		t.Errorf("the response lacks %s:\n%.2000s", c.want, resp)
	}
	if !strings.Contains(resp, firstKept) {
		t.Errorf("the response lost the result of step first:\n%.2000s", resp)
	}
	status := `{"status":"partial"`
	if c.ok {
		status = `{"status":"completed"`
	}
	if !strings.HasPrefix(resp, status) {
		t.Errorf("the response is not %s...}:\n%.2000s", status, resp)
	}
	if !c.ok && strings.Contains(resp, `"after"`) {
		t.Errorf("the step after the fault ran:\n%.2000s", resp)
	}
}

func (c cell) checkTrace(t *testing.T, path string) {
	t.Helper()
	steps := readTrace(t, path)
	if len(steps) < 2 || steps[0].ID != "first" || steps[0].Status != "ok" || compactJSON(string(steps[0].Result)) != `{"value":"a"}` {
		t.Errorf("the trace lost the result of step first: %+v", steps)
		return
	}
	if c.ok {
		if steps[1].Status != "ok" {
			t.Errorf("the trace's step x: %+v", steps[1])
		}
		return
	}
	// The trace holds the error text itself, not JSON-escaped.
	want := c.plainWant()
	if steps[1].Status != "error" || !strings.Contains(steps[1].Error, want) {
		t.Errorf("the trace's step x: %+v, want an error with %q", steps[1], want)
	}
}

// plainWant is want as plain text (the trace and the REPL show the
// error itself, not JSON-escaped).
func (c cell) plainWant() string {
	want := strings.ReplaceAll(c.want, `\"`, `"`)
	return strings.TrimSuffix(strings.TrimPrefix(want, `"error":"`), `"`)
}

func toolFault(t *testing.T, d string, c cell) {
	switch d {
	case run:
		runFault(t, c)
	case repl:
		replFault(t, c)
	case serveHTTP:
		src := c.source(t)
		s := startHTTP(t, append([]string{"--step-timeout", c.stepTimeout(), "--max-result", maxResult}, src.flags...)...)
		serveFault(t, c, src, s.cmd, s.done, s.stderr.String, s.runPlan)
	case serveStdio:
		src := c.source(t)
		s := startStdio(t, append([]string{"--step-timeout", c.stepTimeout(), "--max-result", maxResult}, src.flags...)...)
		serveFault(t, c, src, s.cmd, s.done, s.logText, s.runPlan)
	}
}

// planctl runs the binary to its end.
func planctl(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := clitest.CommandContext(cmdContext(t), binary, args...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// runFault: planctl run ends the run at the fault with exit 1, prints the
// response and writes the trace; another run on the same source works.
func runFault(t *testing.T, c cell) {
	src := c.source(t)
	tr := filepath.Join(t.TempDir(), "trace.json")
	args := append([]string{"run", writeFile(t, "plan.json", faultPlan(c.tool)), "--compact", "--trace", tr, "--step-timeout", c.stepTimeout(), "--max-result", maxResult}, src.flags...)
	code, out, errOut := planctl(t, nil, args...)
	want := 1
	if c.ok {
		want = 0
	}
	if code != want {
		t.Errorf("exit %d, want %d\n%.2000s%s", code, want, out, errOut)
	}
	c.checkResponse(t, compactJSON(out))
	c.checkTrace(t, tr)
	checkAllGone(t, src)
	runGood(t, src)
}

// runGood: a good plan runs to completion on the same source.
func runGood(t *testing.T, src source) {
	t.Helper()
	code, out, errOut := planctl(t, nil, append([]string{"run", writeFile(t, "good.json", goodPlan), "--compact"}, src.flags...)...)
	if code != 0 || compactJSON(out) != goodResponse {
		t.Errorf("a good plan after the fault: exit %d\n%s%s", code, out, errOut)
	}
	checkAllGone(t, src)
}

// replSession is `planctl debug --repl` driven through a pipe.
type replSession struct {
	cmd         *exec.Cmd
	in          io.WriteCloser
	out, errOut *syncBuffer
	done        chan error
}

func startRepl(t *testing.T, args ...string) *replSession {
	t.Helper()
	r := &replSession{out: &syncBuffer{}, errOut: &syncBuffer{}, done: make(chan error, 1)}
	r.cmd = clitest.Command(binary, append([]string{"debug", "--repl"}, args...)...)
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.errOut
	var err error
	if r.in, err = r.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

// do sends a command and waits until the output holds want n times.
func (r *replSession) do(t *testing.T, cmd, want string, n int) {
	t.Helper()
	io.WriteString(r.in, cmd+"\n")
	waitUntil(t, fmt.Sprintf("%q after %q; output so far:\n%s", want, cmd, r.out.String()), func() bool {
		return strings.Count(r.out.String()+r.errOut.String(), want) >= n
	})
}

// script is what every REPL cell types: run the plan, write the trace,
// restart and run the first step again (the debugger still works).
func (r *replSession) script(t *testing.T, end, trace string) {
	t.Helper()
	r.do(t, "continue", end, 1)
	r.do(t, "trace "+trace, "trace written to", 1)
	r.do(t, "restart", "restarted", 1)
	r.do(t, "next", "first (ok): ok", 2)
}

var replBase = struct {
	sync.Mutex
	n map[bool]int
}{n: map[bool]int{}}

// replBaseline is the goroutine count of a REPL that ran the good plan
// through the same script, on the mock catalog or the broken server.
func replBaseline(t *testing.T, mock bool) int {
	replBase.Lock()
	defer replBase.Unlock()
	if n, ok := replBase.n[mock]; ok {
		return n
	}
	src := cell{mock: mock}.source(t)
	r := startRepl(t, append([]string{writeFile(t, "good.json", goodPlan)}, src.flags...)...)
	r.script(t, "run completed", filepath.Join(t.TempDir(), "good.trace.json"))
	n, _ := dumpGoroutines(t, r.cmd, r.errOut, r.done)
	replBase.n[mock] = n
	return n
}

// replFault: the REPL shows the step error, writes the trace with the
// finished step, restarts and runs again; it holds no more goroutines
// than after a good run, and no server it stopped is left.
func replFault(t *testing.T, c cell) {
	base := replBaseline(t, c.mock)
	src := c.source(t)
	tr := filepath.Join(t.TempDir(), "trace.json")
	r := startRepl(t, append([]string{writeFile(t, "plan.json", faultPlan(c.tool)), "--step-timeout", c.stepTimeout(), "--max-result", maxResult}, src.flags...)...)
	end := "run partial: x failed"
	if c.ok {
		end = "run completed"
	}
	r.script(t, end, tr)
	if !c.ok {
		want := "x (" + c.tool + "): error: " + c.plainWant()
		if !strings.Contains(r.out.String(), want) {
			t.Errorf("the REPL does not show %q:\n%.3000s", want, r.out.String())
		}
	}
	c.checkTrace(t, tr)
	checkChildren(t, r.cmd.Process.Pid, src)
	n, dump := dumpGoroutines(t, r.cmd, r.errOut, r.done)
	if n > base {
		t.Errorf("goroutines: %d after a good run, %d after the fault:\n%.6000s", base, n, dump)
	}
	checkAllGone(t, src)
}

// serveFault: the plan's answer carries the step error and the finished
// step; the server answers good plans afterwards, its goroutines come back
// to where they were, it keeps no stopped upstream, and it exits cleanly.
func serveFault(t *testing.T, c cell, src source, cmd *exec.Cmd, done chan error, log func() string, runPlan func(*testing.T, string) string) {
	if got := runPlan(t, goodPlan); got != goodResponse {
		t.Fatalf("a good plan before the fault: %s\n%s", got, log())
	}
	base := baseGoroutines(t, log)
	c.checkResponse(t, runPlan(t, faultPlan(c.tool)))
	settle(t, base, log, func() string { return runPlan(t, goodPlan) })
	checkChildren(t, cmd.Process.Pid, src)
	stopServe(t, cmd, done, log)
	checkAllGone(t, src)
}

// stopServe ends serve with SIGTERM and expects a clean exit.
func stopServe(t *testing.T, cmd *exec.Cmd, done chan error, log func() string) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := <-done; err != nil {
		t.Errorf("serve did not exit cleanly on SIGTERM: %v\n%s", err, log())
	}
	done <- nil // for the cleanup
}

// --- client faults ---

// slowPlan's step x runs until cancelled (10 minutes otherwise).
var slowPlan = faultPlan("slow")

// disconnect: the client goes away while step x runs. run: SIGINT (the
// user's Ctrl-C); serve --http: the connection closes; serve over stdio:
// stdin closes. The running tool call is cancelled, the upstream is told,
// and the finished step is kept where the driver can keep it.
func disconnect(t *testing.T, d string) {
	src := brokenSource(t)
	cancelled := func() bool { return strings.Contains(src.serverLog(), "slow: cancelled") }
	switch d {
	case run:
		tr := filepath.Join(t.TempDir(), "trace.json")
		cmd := clitest.Command(binary, append([]string{"run", writeFile(t, "plan.json", slowPlan), "--compact", "--trace", tr}, src.flags...)...)
		out := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Step first has run once step x's call reached the server.
		waitUntil(t, "step x to be running", func() bool { return slowCalled(src) })
		cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("run after SIGINT: %v, want exit 1\n%s", err, out.String())
		}
		c := cell{want: `step \"x\" was cancelled after`}
		c.checkResponse(t, compactJSON(out.String()))
		c.want = `"error":"step \"x\" was cancelled after`
		c.checkTrace(t, tr)
		checkAllGone(t, src)
		if !cancelled() {
			t.Errorf("the upstream was not told the call was cancelled:\n%s", src.serverLog())
		}
		runGood(t, src)
	case serveHTTP:
		s := startHTTP(t, src.flags...)
		if got := s.runPlan(t, goodPlan); got != goodResponse {
			t.Fatalf("a good plan: %s", got)
		}
		base := baseGoroutines(t, s.stderr.String)
		conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(s.url, "/mcp"), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_plan","arguments":` + slowPlan + `,"_meta":{"progressToken":"p1"}}}`
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer "+faultToken+"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s",
			strings.TrimPrefix(strings.TrimSuffix(s.url, "/mcp"), "http://"), s.session, len(body), body)
		// The progress of step first arrives on the call's stream: the
		// plan is in step x. Then the client goes away.
		buf := make([]byte, 64<<10)
		var got string
		for !strings.Contains(got, "step first (ok) ok") {
			n, err := conn.Read(buf)
			if err != nil {
				t.Fatalf("no progress before %v: %s", err, got)
			}
			got += string(buf[:n])
		}
		// Step x's call must have reached the server before the client
		// goes, or there is nothing in flight to cancel.
		waitUntil(t, "step x to be running", func() bool { return slowCalled(src) })
		conn.Close()
		waitUntil(t, "the plan to end when its client went away", func() bool {
			return strings.Contains(s.stderr.String(), "status=partial ran=1")
		})
		waitUntil(t, "the upstream to be told", cancelled)
		settle(t, base, s.stderr.String, func() string { return s.runPlan(t, goodPlan) })
		checkChildren(t, s.cmd.Process.Pid, src)
		stopServe(t, s.cmd, s.done, s.stderr.String)
		checkAllGone(t, src)
	case serveStdio:
		s := startStdio(t, src.flags...)
		if got := s.runPlan(t, goodPlan); got != goodResponse {
			t.Fatalf("a good plan: %s", got)
		}
		s.send(t, toolCall(slowPlan))
		waitUntil(t, "step x to be running", func() bool { return slowCalled(src) })
		closed := time.Now()
		s.in.Close()
		// The client has gone: serve cancels the plan, stops the upstream
		// and exits 0, within a second (5 s allowed for a loaded machine;
		// the step timeout, 60 s, ended it before).
		if err := <-s.done; err != nil {
			t.Errorf("serve after stdin closed: %v\n%s", err, s.stderr.String())
		}
		s.done <- nil
		if took := time.Since(closed); took > 5*time.Second {
			t.Errorf("serve exited %s after stdin closed, want within a second\n%s", took, s.logText())
		}
		if log := s.logText(); !strings.Contains(log, "status=partial ran=1") {
			t.Errorf("the log does not show the plan ending after step first:\n%s", log)
		}
		checkAllGone(t, src)
		if !cancelled() {
			t.Errorf("the upstream was not told the call was cancelled:\n%s", src.serverLog())
		}
	}
}

// slowCalled reports whether the broken server has received the slow
// call: it says so on stderr.
func slowCalled(src source) bool {
	return strings.Contains(src.serverLog(), "slow: called")
}

// hugeInput: 100 MB where a plan is expected. run and the REPL read a plan
// file over --max-bytes (64 MiB); serve --http gets a 100 MB body, streamed
// without a length, over --max-body.
func hugeInput(t *testing.T, d string) {
	src := mockSource()
	switch d {
	case run, repl:
		p := filepath.Join(t.TempDir(), "huge.json")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"steps":[{"id":"first","tool":"ok","args":{"value":"`)
		f.Write(bytes.Repeat([]byte("x"), 100<<20))
		f.WriteString(`"}}]}`)
		f.Close()
		args := []string{"run", p}
		if d == repl {
			args = []string{"debug", "--repl", p}
		}
		code, out, errOut := planctl(t, strings.NewReader("continue\ndiag\nquit\n"), append(args, src.flags...)...)
		const want = ", more than the limit of 67108864 bytes (64.0 MiB): split it into smaller plans or raise --max-bytes"
		const wantCode = 1 // run: refused; the REPL: shows why, and "continue" fails
		if code != wantCode || !strings.Contains(out+errOut, want) {
			t.Errorf("exit %d, want %d and %q\n%.500s\n%.500s", code, wantCode, want, out, errOut)
		}
		runGood(t, src)
	case serveHTTP:
		s := startHTTP(t, src.flags...)
		if got := s.runPlan(t, goodPlan); got != goodResponse {
			t.Fatalf("a good plan: %s", got)
		}
		base := baseGoroutines(t, s.stderr.String)
		pr, pw := io.Pipe()
		go func() {
			chunk := bytes.Repeat([]byte(" "), 1<<20)
			for i := 0; i < 100; i++ {
				if _, err := pw.Write(chunk); err != nil {
					return
				}
			}
			pw.Close()
		}()
		req := s.request(pr) // no Content-Length: chunked
		resp, err := s.client.Do(req)
		pr.CloseWithError(errors.New("done"))
		if err != nil {
			t.Fatalf("a 100 MB body: %v (want a 413 answer)", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "the body is more than the limit of 4194304 bytes (4.0 MiB): send a smaller plan or raise --max-body") {
			t.Errorf("a 100 MB body: %d %s", resp.StatusCode, b)
		}
		settle(t, base, s.stderr.String, func() string { return s.runPlan(t, goodPlan) })
		stopServe(t, s.cmd, s.done, s.stderr.String)
	}
}

// flood: 10,000 requests at once, each on its own connection: all are
// sent before any answer is read (one goroutine per connection would trip
// the race detector's limit of 8128). Every one is answered: the plan's
// response, or 503 past --max-inflight. --max-conns is raised over the
// 10,000: past it serve sheds connections that have not sent their
// headers yet (docs/security.md), which this cell does not measure.
func flood(t *testing.T, d string) {
	src := mockSource()
	s := startHTTP(t, append([]string{"--stateless", "--max-conns", "10500"}, src.flags...)...)
	s.session = ""
	if got := s.runPlan(t, goodPlan); got != goodResponse {
		t.Fatalf("a good plan: %s", got)
	}
	base := baseGoroutines(t, s.stderr.String)
	const n = 10000
	host := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp")
	call := toolCall(goodPlan)
	req := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", host, faultToken, len(call), call)
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	counts := map[string]int{}
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", host)
		if err == nil {
			_, err = io.WriteString(c, req)
		}
		if err != nil {
			counts["connection error"]++
			if counts["connection error"] == 1 {
				t.Errorf("request %d could not be sent: %v", i, err)
			}
			continue
		}
		conns = append(conns, c)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan net.Conn)
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				var kind string
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					kind = "no answer: " + err.Error()
				} else {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					switch {
					case resp.StatusCode == 200 && planAnswer(string(b)) == goodResponse:
						kind = "200 completed"
					case resp.StatusCode == 503 && strings.Contains(string(b), "requests are being served already (--max-inflight); retry in a moment"):
						kind = "503 --max-inflight"
					default:
						kind = fmt.Sprintf("HTTP %d %.200s", resp.StatusCode, b)
					}
				}
				c.Close()
				mu.Lock()
				counts[kind]++
				mu.Unlock()
			}
		}()
	}
	for _, c := range conns {
		next <- c
	}
	close(next)
	wg.Wait()
	t.Logf("10,000 requests at once: %v", counts)
	if counts["200 completed"] == 0 || counts["200 completed"]+counts["503 --max-inflight"] != n {
		t.Errorf("every request must get the plan's answer or a clear 503: %v", counts)
	}
	settle(t, base, s.stderr.String, func() string { return s.runPlan(t, goodPlan) })
	stopServe(t, s.cmd, s.done, s.stderr.String)
}

// depthWant is serve's answer to a request nested too deep, before mcp-go
// decodes it.
const depthWant = `{"code":-32700,"message":"Parse error: the request nests arrays and objects more than 1100 levels deep; a plan may nest at most 1000: flatten its values"}`

// deepNesting: a plan whose argument nests 10,000 arrays deep is refused
// with a message that names the nesting, before any step runs.
func deepNesting(t *testing.T, d string) {
	src := mockSource()
	deep := deepPlan(10000)
	const want = "nesting deeper than"
	switch d {
	case run:
		code, out, errOut := planctl(t, nil, append([]string{"run", writeFile(t, "deep.json", deep), "--compact"}, src.flags...)...)
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("exit %d\n%.500s\n%.500s", code, out, errOut)
		}
		runGood(t, src)
	case repl:
		r := startRepl(t, append([]string{writeFile(t, "deep.json", deep)}, src.flags...)...)
		r.do(t, "continue", "the plan has no steps to run: type diag to see why", 1)
		r.do(t, "diag", want, 1)
		r.do(t, "quit", "", 0)
		<-r.done
		r.done <- nil
	case serveHTTP:
		s := startHTTP(t, src.flags...)
		if got := s.runPlan(t, goodPlan); got != goodResponse {
			t.Fatalf("a good plan: %s", got)
		}
		base := baseGoroutines(t, s.stderr.String)
		code, body, _ := s.post(t, toolCall(deep))
		if code != 400 || !strings.Contains(body, depthWant) {
			t.Errorf("a plan 10,000 deep: HTTP %d %.1000s", code, body)
		}
		settle(t, base, s.stderr.String, func() string { return s.runPlan(t, goodPlan) })
		stopServe(t, s.cmd, s.done, s.stderr.String)
	case serveStdio:
		s := startStdio(t, src.flags...)
		if got := s.runPlan(t, goodPlan); got != goodResponse {
			t.Fatalf("a good plan: %s", got)
		}
		base := baseGoroutines(t, s.logText)
		s.send(t, toolCall(deep))
		if got := s.read(t, `"id":null`); !strings.Contains(got, depthWant) {
			t.Errorf("a plan 10,000 deep: %.1000s", got)
		}
		settle(t, base, s.logText, func() string { return s.runPlan(t, goodPlan) })
		stopServe(t, s.cmd, s.done, s.logText)
	}
}
