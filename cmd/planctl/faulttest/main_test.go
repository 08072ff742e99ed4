package faulttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

var (
	binary string // planctl
	broken string // plan/upstream/testdata/brokenserver
)

// TestMain builds planctl and the deliberately broken MCP server once.
func TestMain(m *testing.M) {
	// The cells wait on planctl's grace periods and step timeouts far more
	// than they compute; two at a time (-parallel's default here) queued
	// those waits one behind another.
	clitest.ParallelAtLeast(8)
	clitest.Main(m, func(dir string) {
		binary = filepath.Join(dir, "planctl")
		broken = filepath.Join(dir, "brokenserver")
	}, "planctl=..", "brokenserver=../../../plan/upstream/testdata/brokenserver")
}

// syncBuffer collects a process's output while the test reads it.
type syncBuffer = clitest.Buffer

// waitUntil polls cond until it holds; it fails the test after a minute
// (a guard against hangs, not a timing assertion).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// source is where a cell's tools come from, as planctl flags, and the file
// the broken server writes each of its pids to.
type source struct {
	flags   []string
	pidfile string // "" for the mock catalog
}

func brokenSource(t *testing.T) source {
	dir := t.TempDir()
	pf := filepath.Join(dir, "pids")
	return source{
		flags:   []string{"--server", quote(broken) + " -xsharable -pidfile " + quote(pf), "--server-log", filepath.Join(dir, "server.log")},
		pidfile: pf,
	}
}

func mockSource() source {
	return source{flags: []string{"--catalog", "testdata/faults.json"}}
}

// serverLog is what the broken server wrote on stderr.
func (s source) serverLog() string {
	for i, f := range s.flags {
		if f == "--server-log" {
			b, _ := os.ReadFile(s.flags[i+1])
			return string(b)
		}
	}
	return ""
}

// pids are the broken servers planctl started for this source.
func (s source) pids() []int {
	if s.pidfile == "" {
		return nil
	}
	b, _ := os.ReadFile(s.pidfile)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// alive reports whether pid is a running process (not gone, not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// children lists the live child processes of pid, from /proc.
func children(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, c := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(c); err == nil && alive(n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// checkChildren: planctl (pid) has at most one child, the upstream it is
// using now, and every other broken server it started is gone.
func checkChildren(t *testing.T, pid int, src source) {
	t.Helper()
	kids := children(pid)
	if len(kids) > 1 {
		t.Errorf("planctl has %d child processes, want at most the one upstream in use: %v", len(kids), kids)
	}
	live := map[int]bool{}
	for _, k := range kids {
		live[k] = true
	}
	for _, p := range src.pids() {
		if !live[p] && alive(p) {
			t.Errorf("broken server pid %d outlived its session with planctl", p)
		}
	}
}

// checkAllGone: once planctl has exited, no server it started is left.
func checkAllGone(t *testing.T, src source) {
	t.Helper()
	for _, p := range src.pids() {
		p := p
		waitUntil(t, fmt.Sprintf("broken server pid %d to end after planctl did", p), func() bool { return !alive(p) })
	}
}

// --- plans ---

// faultPlan: a step that works, the faulty step, and one that must not run.
func faultPlan(tool string) string {
	return `{"steps":[{"id":"first","tool":"ok","args":{"value":"a"}},{"id":"x","tool":"` + tool + `","args":{}},{"id":"after","tool":"ok","args":{"value":"b"}}]}`
}

const goodPlan = `{"steps":[{"id":"first","tool":"ok","args":{"value":"a"}},{"id":"second","tool":"ok","args":{"value":{"output_by_reference":{"first":["value"]}}}}]}`

const goodResponse = `{"status":"completed","steps":{"first":{"status":"ok","result":{"value":"a"}},"second":{"status":"ok","result":{"value":"a"}}}}`

const firstKept = `"first":{"status":"ok","result":{"value":"a"}}`

// deepPlan nests the argument of its second step depth levels deep.
func deepPlan(depth int) string {
	return `{"steps":[{"id":"first","tool":"ok","args":{"value":"a"}},{"id":"deep","tool":"ok","args":{"value":` +
		strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}]}`
}

func writeFile(t *testing.T, name, data string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// compactJSON re-encodes a JSON text on one line, keeping key order.
func compactJSON(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(strings.TrimSpace(s))) != nil {
		return s
	}
	return b.String()
}

// traceStep is one step of a planctl trace.
type traceStep struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

func readTrace(t *testing.T, path string) []traceStep {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no trace: %v", err)
	}
	var tr struct {
		Steps []traceStep `json:"steps"`
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("the trace is not JSON: %v", err)
	}
	return tr.Steps
}

// --- goroutines ---

var goroutineHeader = regexp.MustCompile(`(?m)^goroutine \d+ \[`)

// dumpGoroutines sends SIGQUIT to a Go process and returns the number of
// goroutines in the stack dump it prints on stderr as it dies.
func dumpGoroutines(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer, done chan error) (int, string) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGQUIT)
	done <- <-done // and leave it for the cleanup
	dump := stderr.String()
	return len(goroutineHeader.FindAllString(dump, -1)), dump
}

var logGoroutines = regexp.MustCompile(`msg=plan .*goroutines=(\d+)`)

func planLines(log string) int { return len(logGoroutines.FindAllStringIndex(log, -1)) }

// baseGoroutines is the goroutine count on serve's log line for the one
// good plan it has run so far.
func baseGoroutines(t *testing.T, log func() string) int {
	t.Helper()
	waitUntil(t, "serve to log the plan", func() bool { return planLines(log()) > 0 })
	return lastGoroutines(log())
}

// lastGoroutines is the goroutine count on serve's last "plan" log line.
func lastGoroutines(log string) int {
	m := logGoroutines.FindAllStringSubmatch(log, -1)
	if len(m) == 0 {
		return -1
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

// --- serve over HTTP, with raw requests ---

type httpServe struct {
	cmd     *exec.Cmd
	url     string
	stderr  *syncBuffer
	done    chan error
	session string
	client  *http.Client
}

// faultToken is the bearer token of the served processes: serve requires one.
const faultToken = "tok-faulttest"

var urlLine = regexp.MustCompile(`serving execute_plan at (http://\S+)`)

func startHTTP(t *testing.T, args ...string) *httpServe {
	t.Helper()
	cmd := clitest.Command(binary, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "PLANCTL_AUTH_TOKEN="+faultToken)
	s := &httpServe{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1),
		client: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.done
	})
	waitUntil(t, "serve to listen", func() bool { return urlLine.MatchString(s.stderr.String()) })
	s.url = urlLine.FindStringSubmatch(s.stderr.String())[1]
	code, body, hdr := s.post(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"faulttest","version":"1"}}}`)
	if code != 200 {
		t.Fatalf("initialize: %d %s", code, body)
	}
	s.session = hdr.Get("Mcp-Session-Id")
	s.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *httpServe) request(body io.Reader) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, s.url, body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+faultToken)
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
	}
	return req
}

func (s *httpServe) post(t *testing.T, body string) (int, string, http.Header) {
	t.Helper()
	resp, err := s.client.Do(s.request(strings.NewReader(body)))
	if err != nil {
		t.Fatalf("the server is not answering: %v\n%s", err, s.stderr.String())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

var callID struct {
	sync.Mutex
	n int
}

func toolCall(planJSON string) string {
	callID.Lock()
	callID.n++
	id := callID.n + 100
	callID.Unlock()
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"execute_plan","arguments":%s}}`, id, planJSON)
}

// planAnswer pulls the plan response (the text of execute_plan's result)
// or the JSON-RPC error out of a JSON or SSE answer.
func planAnswer(body string) string {
	msg := body
	if strings.Contains(body, "data: ") {
		sc := bufio.NewScanner(strings.NewReader(body))
		sc.Buffer(nil, 256<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"id"`) && !strings.Contains(d, `"method"`) {
				msg = d
			}
		}
	}
	var m struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(msg), &m) != nil {
		return body
	}
	if m.Error != nil {
		return "JSON-RPC error: " + m.Error.Message
	}
	if len(m.Result.Content) == 0 {
		return body
	}
	return compactJSON(m.Result.Content[0].Text)
}

// runPlan sends a plan and returns its response.
func (s *httpServe) runPlan(t *testing.T, planJSON string) string {
	t.Helper()
	code, body, _ := s.post(t, toolCall(planJSON))
	if code != 200 {
		return fmt.Sprintf("HTTP %d: %s", code, body)
	}
	return planAnswer(body)
}

// settle sends good plans until serve's goroutine count is back to at most
// base (the count on a good plan before the fault), and fails when it never
// comes back: something the fault started was left behind.
func settle(t *testing.T, base int, log func() string, good func() string) {
	t.Helper()
	var n int
	for i := 0; i < 50; i++ {
		lines := planLines(log())
		if got := good(); got != goodResponse {
			t.Fatalf("a good plan after the fault: %s", got)
		}
		waitUntil(t, "serve to log the plan", func() bool { return planLines(log()) > lines })
		if n = lastGoroutines(log()); n <= base {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("goroutines: %d before the fault, still %d after it: something was left running", base, n)
}

// --- serve over stdio ---

type stdioServe struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *syncBuffer
	done   chan error
	log    string
}

func startStdio(t *testing.T, args ...string) *stdioServe {
	t.Helper()
	s := &stdioServe{stderr: &syncBuffer{}, done: make(chan error, 1), log: filepath.Join(t.TempDir(), "serve.log")}
	s.cmd = clitest.Command(binary, append([]string{"serve", "--log", s.log}, args...)...)
	s.cmd.Stderr = s.stderr
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	outp, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.out = bufio.NewReaderSize(outp, 1<<20)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-s.done
	})
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"faulttest","version":"1"}}}`)
	s.read(t, `"id":1`)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *stdioServe) logText() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

func (s *stdioServe) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatalf("serve's stdin: %v\n%s", err, s.stderr.String())
	}
}

// read returns the next line of stdout holding want.
func (s *stdioServe) read(t *testing.T, want string) string {
	t.Helper()
	for {
		line, err := s.out.ReadString('\n')
		if err != nil {
			t.Fatalf("serve's stdout ended (%v) before %s\n%s", err, want, s.stderr.String())
		}
		if strings.Contains(line, want) {
			return line
		}
	}
}

func (s *stdioServe) runPlan(t *testing.T, planJSON string) string {
	t.Helper()
	call := toolCall(planJSON)
	id := regexp.MustCompile(`"id":\d+`).FindString(call)
	s.send(t, call)
	return planAnswer(s.read(t, id+","))
}

// context for commands that must end by themselves.
func cmdContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
