package dap_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/dap"
	"github.com/planctl/planctl/plan/runner"
)

var update = flag.Bool("update", false, "rewrite testdata/session.golden")

// client is a DAP client over pipes to an in-process Server, with go-dap's
// own framing on both sides.
type client struct {
	t    *testing.T
	w    io.WriteCloser
	seq  int
	done chan error
	log  *bytes.Buffer
	// msgs holds what the server sent, read as it comes by a goroutine
	// of its own, as an editor reads: a server that writes an event while
	// the test writes a request is not held up (the pipes have no buffer).
	msgs    chan godap.Message
	readErr chan error
}

func open(catalog *plan.Catalog) func(ctx context.Context, l dap.Launch) (*dap.Opened, error) {
	return func(ctx context.Context, l dap.Launch) (*dap.Opened, error) {
		data, err := os.ReadFile(l.Program)
		if err != nil {
			return nil, err
		}
		c := catalog
		if c == nil {
			c = mockserver.Demo()
		}
		ro := runner.RunOptions{StepTimeout: l.Timeout()}
		return &dap.Opened{Debugger: runner.NewDebugger(plan.Load(l.Program, data, plan.Limits{}), c, runner.DebugOptions{Run: ro})}, nil
	}
}

func start(t *testing.T, catalog *plan.Catalog) *client {
	t.Helper()
	return startWith(t, open(catalog))
}

// startWith starts a server whose launches open with openFn.
func startWith(t *testing.T, openFn func(ctx context.Context, l dap.Launch) (*dap.Opened, error)) *client {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	c := &client{t: t, w: cw, done: make(chan error, 1), log: &bytes.Buffer{}, msgs: make(chan godap.Message, 1<<16), readErr: make(chan error, 1)}
	go func() {
		r := bufio.NewReader(cr)
		for {
			m, err := godap.ReadProtocolMessage(r)
			if err != nil {
				c.readErr <- err
				return
			}
			c.msgs <- m
		}
	}()
	srv := dap.NewServer(dap.Options{Open: openFn, Trace: c.log})
	go func() {
		err := srv.Serve(struct {
			io.Reader
			io.Writer
		}{sr, sw})
		sw.Close()
		c.done <- err
	}()
	t.Cleanup(func() { cw.Close(); cr.Close() })
	return c
}

func (c *client) send(command string, args any) int {
	c.t.Helper()
	c.seq++
	m := map[string]any{"seq": c.seq, "type": "request", "command": command}
	if args != nil {
		m["arguments"] = args
	}
	data, _ := json.Marshal(m)
	if err := godap.WriteBaseMessage(c.w, data); err != nil {
		c.t.Fatal(err)
	}
	return c.seq
}

// next reads the next message.
func (c *client) next() godap.Message {
	c.t.Helper()
	select {
	case m := <-c.msgs:
		return m
	case err := <-c.readErr:
		// The reader sends its error after every message it read.
		select {
		case m := <-c.msgs:
			c.readErr <- err
			return m
		default:
		}
		c.t.Fatalf("reading: %v", err)
		return nil
	case <-time.After(silenceGuard):
		c.t.Fatalf("the server sent nothing for %s: a message the test waits for never came", silenceGuard)
		return nil
	}
}

// silenceGuard bounds a wait that only a bug makes long (an event the
// server never sends): the test fails saying so instead of hanging until
// go test's timeout.
const silenceGuard = 2 * time.Minute

// until reads messages until one matches, and returns it with those before.
func (c *client) until(match func(godap.Message) bool) (godap.Message, []godap.Message) {
	c.t.Helper()
	var seen []godap.Message
	for {
		m := c.next()
		if match(m) {
			return m, seen
		}
		seen = append(seen, m)
	}
}

func isEvent(name string) func(godap.Message) bool {
	return func(m godap.Message) bool {
		e, ok := m.(godap.EventMessage)
		return ok && e.GetEvent().Event == name
	}
}

// call sends a request and returns its response (events before it are
// returned too).
func (c *client) call(command string, args any) (godap.ResponseMessage, []godap.Message) {
	c.t.Helper()
	seq := c.send(command, args)
	m, seen := c.until(func(m godap.Message) bool {
		r, ok := m.(godap.ResponseMessage)
		return ok && r.GetResponse().RequestSeq == seq
	})
	return m.(godap.ResponseMessage), seen
}

func (c *client) ok(command string, args any) godap.ResponseMessage {
	c.t.Helper()
	r, _ := c.call(command, args)
	if !r.GetResponse().Success {
		c.t.Fatalf("%s failed: %s", command, r.GetResponse().Message)
	}
	return r
}

func (c *client) stopped() *godap.StoppedEvent {
	c.t.Helper()
	m, _ := c.until(func(m godap.Message) bool { return isEvent("stopped")(m) || isEvent("terminated")(m) })
	s, ok := m.(*godap.StoppedEvent)
	if !ok {
		c.t.Fatalf("terminated, not stopped")
	}
	return s
}

// launch initializes, launches program and sets breakpoints (lines),
// exception filters, then configurationDone.
func (c *client) launch(program string, stopOnEntry bool, filters []string, bps ...godap.SourceBreakpoint) *godap.SetBreakpointsResponse {
	c.t.Helper()
	c.ok("initialize", map[string]any{"adapterID": "planctl", "linesStartAt1": true, "columnsStartAt1": true})
	c.ok("launch", map[string]any{"program": program, "stopOnEntry": stopOnEntry})
	c.until(isEvent("initialized"))
	var resp *godap.SetBreakpointsResponse
	if len(bps) > 0 {
		resp = c.ok("setBreakpoints", map[string]any{"source": map[string]any{"path": program}, "breakpoints": bps}).(*godap.SetBreakpointsResponse)
	}
	c.ok("setExceptionBreakpoints", map[string]any{"filters": filters})
	c.ok("configurationDone", nil)
	return resp
}

func writePlan(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const backupPlan = `{"steps": [
  {"id": "backup",   "tool": "create_backup",   "args": {"database": "prod"}},
  {"id": "validate", "tool": "validate_backup",
   "args": {"backup_id": {"output_by_reference": {"backup": ["backup_id"]}}}}
]}
`

// TestSessionLog records one short session (the one docs/debug.md shows)
// and compares it with testdata/session.golden; the docs' block must be
// that file.
func TestSessionLog(t *testing.T) {
	program := writePlan(t, backupPlan)
	c := start(t, nil)
	c.launch(program, true, []string{"step-failed"}, godap.SourceBreakpoint{Line: 4})
	c.stopped()
	c.ok("stackTrace", map[string]any{"threadId": 1})
	c.ok("scopes", map[string]any{"frameId": 1})
	c.ok("variables", map[string]any{"variablesReference": 1})
	c.ok("continue", map[string]any{"threadId": 1})
	c.stopped()
	c.ok("stackTrace", map[string]any{"threadId": 1})
	c.ok("scopes", map[string]any{"frameId": 2})
	c.ok("variables", map[string]any{"variablesReference": 4})
	c.ok("next", map[string]any{"threadId": 1})
	c.until(isEvent("terminated"))
	c.ok("disconnect", nil)
	if err := <-c.done; err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(c.log.String(), filepath.Dir(program), "/home/me")
	// The response's created_at is the mock's fixed text; nothing else varies.
	golden := "testdata/session.golden"
	if *update {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the session differs from %s (go test ./plan/dap -run TestSessionLog -update, then review):\n%s", golden, got)
	}
	doc, err := os.ReadFile("../../docs/debug.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- dap session: plan/dap/testdata/session.golden -->\n```text\n(.*?)```\n").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/debug.md has no block after <!-- dap session: plan/dap/testdata/session.golden -->")
	}
	if string(m[1]) != string(want) {
		t.Errorf("the session in docs/debug.md is not testdata/session.golden: copy it there")
	}
}

// TestHitCountsAndRestart: a breakpoint with hit condition 2 lets the
// first run through and stops the second (restart keeps the counts).
func TestHitCountsAndRestart(t *testing.T) {
	program := writePlan(t, backupPlan)
	c := start(t, nil)
	bps := c.launch(program, false, []string{"step-failed"}, godap.SourceBreakpoint{Line: 4, HitCondition: "2"},
		godap.SourceBreakpoint{Line: 3, HitCondition: "every now and then"})
	if b := bps.Body.Breakpoints; !b[0].Verified || b[0].Line != 3 || b[1].Verified || !strings.Contains(b[1].Message, "hit condition") {
		t.Fatalf("breakpoints: %+v", b)
	}
	_, seen := c.until(isEvent("terminated"))
	var exited bool
	for _, m := range seen {
		if e, ok := m.(*godap.ExitedEvent); ok && e.Body.ExitCode == 0 {
			exited = true
		}
	}
	if !exited {
		t.Errorf("no exited event with code 0 before terminated")
	}
	c.ok("restart", nil)
	s := c.stopped()
	if s.Body.Reason != "breakpoint" || len(s.Body.HitBreakpointIds) != 1 || s.Body.HitBreakpointIds[0] != bps.Body.Breakpoints[0].Id {
		t.Fatalf("second run: %+v", s.Body)
	}
	// restartFrame on the finished step: it is next again.
	c.ok("restartFrame", map[string]any{"frameId": 1})
	if s := c.stopped(); s.Body.Reason != "restart" {
		t.Fatalf("restartFrame: %+v", s.Body)
	}
	st := c.ok("stackTrace", map[string]any{"threadId": 1}).(*godap.StackTraceResponse)
	if len(st.Body.StackFrames) != 1 || !strings.HasPrefix(st.Body.StackFrames[0].Name, "backup ") {
		t.Fatalf("after restartFrame: %+v", st.Body.StackFrames)
	}
	// The adapter asks nothing, but says which tools it called again.
	for _, want := range []string{"restart: calls again create_backup, which already ran", "rerun backup: calls again create_backup, which already ran"} {
		if !strings.Contains(c.log.String(), want) {
			t.Errorf("the session log lacks %q:\n%s", want, c.log.String())
		}
	}
	c.ok("terminate", nil)
	c.until(isEvent("terminated"))
}

// TestConditions: a conditional breakpoint stops only when its query
// over the results so far is truthy; hit counts count the times it held.
func TestConditions(t *testing.T) {
	program := writePlan(t, `{"steps": [
  {"id": "a", "tool": "create_backup", "args": {"database": "prod"}},
  {"id": "b", "tool": "create_backup", "args": {"database": "prod"}},
  {"id": "c", "tool": "create_backup", "args": {"database": "prod"}},
  {"id": "d", "tool": "create_backup", "args": {"database": "prod"}}
]}`)
	c := start(t, nil)
	bps := c.launch(program, false, []string{"step-failed"},
		godap.SourceBreakpoint{Line: 3, Condition: `a.database=="staging"`},
		godap.SourceBreakpoint{Line: 4, Condition: `b.backup_id`},
		godap.SourceBreakpoint{Line: 4, Condition: `a.backup_id`},
		godap.SourceBreakpoint{Line: 5, Condition: "   "})
	b := bps.Body.Breakpoints
	if !b[0].Verified || !b[1].Verified || b[2].Verified || !strings.Contains(b[2].Message, "one condition") || !b[3].Verified {
		t.Fatalf("breakpoints: %+v", b)
	}
	s := c.stopped()
	st := c.ok("stackTrace", map[string]any{"threadId": 1}).(*godap.StackTraceResponse)
	if s.Body.Reason != "breakpoint" || !strings.HasPrefix(st.Body.StackFrames[0].Name, "c ") {
		t.Fatalf("stopped at %+v, want c (b's condition does not hold, c's does)", st.Body.StackFrames[0])
	}
	// A blank condition is no condition: d stops too.
	c.ok("continue", map[string]any{"threadId": 1})
	c.stopped()
	st = c.ok("stackTrace", map[string]any{"threadId": 1}).(*godap.StackTraceResponse)
	if !strings.HasPrefix(st.Body.StackFrames[0].Name, "d ") {
		t.Fatalf("stopped at %+v, want d", st.Body.StackFrames[0])
	}
	// Queries in evaluate.
	for _, tc := range []struct{ expr, want string }{
		{"a.backup_id", `"bk-prod"`},
		{"{a:a.database,n:c.size_bytes}", `{"a":"prod","n":12345678901234567890}`},
		{"@keys", `["a","b","c"]`},
	} {
		e, ok := c.ok("evaluate", map[string]any{"expression": tc.expr, "context": "repl"}).(*godap.EvaluateResponse)
		if !ok || e.Body.Result != tc.want {
			t.Errorf("evaluate %s: %+v, want %s", tc.expr, e.Body, tc.want)
		}
	}
	r, _ := c.call("evaluate", map[string]any{"expression": "c.nope|@reverse", "context": "repl"})
	if r.GetResponse().Success || !strings.Contains(r.GetResponse().Message, "nothing matched") {
		t.Errorf("a query that matches nothing: %+v", r.GetResponse())
	}
}

// TestPauseCancelsTheToolCall: pause during a tool call that would take
// an hour cancels it; the run stops with reason pause at that step.
func TestPauseCancelsTheToolCall(t *testing.T) {
	cat, err := mockserver.Load("slow.json", []byte(`{"tools": [{"name": "slow", "inputSchema": {"type": "object"}, "result": {"ok": true}, "delay": "1h"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	program := writePlan(t, `{"steps": [{"id": "wait", "tool": "slow", "args": {}}]}`)
	c := start(t, cat)
	c.launch(program, true, []string{"step-failed"})
	c.stopped()
	c.ok("continue", map[string]any{"threadId": 1})
	c.until(func(m godap.Message) bool {
		o, ok := m.(*godap.OutputEvent)
		return ok && o.Body.Output == "wait (slow): calling the tool\n"
	})
	c.ok("pause", map[string]any{"threadId": 1})
	s := c.stopped()
	if s.Body.Reason != "pause" || !strings.Contains(s.Body.Text, "cancelled") {
		t.Fatalf("pause: %+v", s.Body)
	}
}

// TestPreflightFilter: with "plan rejected by preflight" on, a plan with
// errors stops before its first step with the first error; off, it runs
// into the failure (step failed, default on).
func TestPreflightFilter(t *testing.T) {
	program := writePlan(t, `{"steps": [
  {"id": "backup", "tool": "create_backup", "args": {"database": "prod"}},
  {"id": "announce", "tool": "notify", "args": {"channel": {"output_by_reference": {"backup": ["database"]}}, "message": "done"}}
]}`)
	c := start(t, nil)
	c.ok("initialize", map[string]any{"adapterID": "planctl"})
	c.ok("launch", map[string]any{"program": program})
	_, seen := c.until(isEvent("initialized"))
	var diag string
	for _, m := range seen {
		if o, ok := m.(*godap.OutputEvent); ok && o.Body.Category == "console" {
			diag = o.Body.Output
		}
	}
	if !strings.Contains(diag, "plan.json:3:") || !strings.Contains(diag, "REF_NOT_SHARABLE") {
		t.Errorf("the diagnostics are not console output with file:line:col: %q", diag)
	}
	c.ok("setExceptionBreakpoints", map[string]any{"filters": []string{"step-failed", "preflight"}})
	c.ok("configurationDone", nil)
	s := c.stopped()
	if s.Body.Reason != "exception" || !strings.Contains(s.Body.Text, "not sharable") {
		t.Fatalf("preflight: %+v", s.Body)
	}
	info := c.ok("exceptionInfo", map[string]any{"threadId": 1}).(*godap.ExceptionInfoResponse)
	if info.Body.ExceptionId != "plan rejected by preflight" || !strings.Contains(info.Body.Details.StackTrace, "REF_NOT_SHARABLE") {
		t.Errorf("exceptionInfo: %+v", info.Body)
	}
	c.ok("continue", map[string]any{"threadId": 1})
	s = c.stopped()
	if s.Body.Reason != "exception" || s.Body.Text != "Parameter 'channel' is not sharable and cannot use references" {
		t.Fatalf("the run into the failure: %+v", s.Body)
	}
	// With "step failed" off, continue ends the run partial.
	c.ok("setExceptionBreakpoints", map[string]any{"filters": []string{}})
	c.ok("continue", map[string]any{"threadId": 1})
	m, _ := c.until(isEvent("exited"))
	if e := m.(*godap.ExitedEvent); e.Body.ExitCode != 1 {
		t.Errorf("exit code %d, want 1 (partial)", e.Body.ExitCode)
	}
	c.until(isEvent("terminated"))
}

// TestLaunchWithoutDebugger: a host whose Open builds no Debugger gets a
// launch error that says so, not a crash at the first request.
func TestLaunchWithoutDebugger(t *testing.T) {
	c := startWith(t, func(context.Context, dap.Launch) (*dap.Opened, error) { return &dap.Opened{}, nil })
	r, _ := c.call("launch", map[string]any{"program": "x.json"})
	if r.GetResponse().Success || !strings.Contains(r.GetResponse().Message, "opened no Debugger") {
		t.Errorf("launch: %+v, want an error that names the missing Debugger", r.GetResponse())
	}
	r, _ = c.call("next", map[string]any{"threadId": 1})
	if r.GetResponse().Success || !strings.Contains(r.GetResponse().Message, "no plan is launched") {
		t.Errorf("next after the failed launch: %+v", r.GetResponse())
	}
}

// TestBadRequests: wrong input gets an error response that says what to
// do, never a hang or a crash.
func TestBadRequests(t *testing.T) {
	c := start(t, nil)
	for _, tc := range []struct {
		command string
		args    any
		want    string
	}{
		{"launch", map[string]any{}, `no "program"`},
		{"launch", map[string]any{"program": "x.json", "stepTimeout": "soon"}, "not a duration"},
		{"launch", map[string]any{"program": "x.json", "stopOnEntry": "yes"}, `"stopOnEntry" is a string: it takes true or false`},
		{"launch", map[string]any{"program": "/no/such/plan.json"}, "no such file"},
		{"next", map[string]any{"threadId": 1}, "no plan is launched"},
		{"stackTrace", map[string]any{"threadId": 1}, "no plan is launched"},
		{"variables", map[string]any{"variablesReference": 99}, "gone"},
		{"attach", map[string]any{}, `no "program"`},
		{"gotoTargets", map[string]any{"source": map[string]any{}, "line": 1}, "does not support"},
		{"noSuchCommand", nil, "cannot read"},
	} {
		r, _ := c.call(tc.command, tc.args)
		if r.GetResponse().Success || !strings.Contains(r.GetResponse().Message, tc.want) {
			t.Errorf("%s %v: %+v, want an error with %q", tc.command, tc.args, r.GetResponse(), tc.want)
		}
	}
	// A malformed frame ends the session with an error, not a hang.
	io.WriteString(c.w, "Content-Length: x\r\n\r\n")
	if err := <-c.done; err == nil {
		t.Errorf("a malformed header ended the session without an error")
	}
}

// TestEvaluate: paths, reference objects, errors that name the fix.
func TestEvaluate(t *testing.T) {
	program := writePlan(t, backupPlan)
	c := start(t, nil)
	c.launch(program, false, []string{"step-failed"}, godap.SourceBreakpoint{Line: 3})
	c.stopped()
	for _, tc := range []struct{ expr, want, err string }{
		{"backup.backup_id", `"bk-prod"`, ""},
		{"backup.size_bytes", "12345678901234567890", ""},
		{`{"output_by_reference": {"backup": ["database"]}}`, `"prod"`, ""},
		{"backup.nope", "", "key 'nope' not found"},
		{"validate", "", "has not run yet"},
		{"bakup", "", `did you mean "backup"`},
		{`{"output_by_reference": 3}`, "", "exactly one key"},
	} {
		r, _ := c.call("evaluate", map[string]any{"expression": tc.expr, "context": "repl"})
		if tc.err != "" {
			if r.GetResponse().Success || !strings.Contains(r.GetResponse().Message, tc.err) {
				t.Errorf("evaluate %s: %+v, want an error with %q", tc.expr, r.GetResponse(), tc.err)
			}
			continue
		}
		e, ok := r.(*godap.EvaluateResponse)
		if !ok || e.Body.Result != tc.want {
			t.Errorf("evaluate %s: %+v, want %s", tc.expr, r, tc.want)
		}
	}
	// setVariable outside the next step's arguments is refused with why.
	sc := c.ok("scopes", map[string]any{"frameId": 1}).(*godap.ScopesResponse)
	r, _ := c.call("setVariable", map[string]any{"variablesReference": sc.Body.Scopes[1].VariablesReference, "name": "backup_id", "value": `"x"`})
	if r.GetResponse().Success || !strings.Contains(r.GetResponse().Message, "only the arguments of the step about to run (validate)") {
		t.Errorf("setVariable on a finished step's result: %+v", r.GetResponse())
	}
}

// TestOddPlansAndClients: a plan that does not parse ends the session
// after its diagnostics; a client counting lines from 0 gets lines from 0;
// actions while a step runs are refused, not queued.
func TestOddPlansAndClients(t *testing.T) {
	broken := writePlan(t, `{"steps": [ {"id": "a", "tool": `)
	c := start(t, nil)
	c.ok("initialize", map[string]any{"adapterID": "planctl"})
	c.ok("launch", map[string]any{"program": broken})
	_, seen := c.until(isEvent("initialized"))
	if len(seen) == 0 || !strings.Contains(seen[len(seen)-1].(*godap.OutputEvent).Body.Output, "JSON_SYNTAX") {
		t.Errorf("no JSON_SYNTAX output before initialized: %+v", seen)
	}
	c.ok("configurationDone", nil)
	c.until(isEvent("terminated"))
	r, _ := c.call("next", map[string]any{"threadId": 1})
	if r.GetResponse().Success || !strings.Contains(r.GetResponse().Message, "ended") {
		t.Errorf("next after the end: %+v", r.GetResponse())
	}

	program := writePlan(t, backupPlan)
	c = start(t, nil)
	c.ok("initialize", map[string]any{"adapterID": "planctl", "linesStartAt1": false, "columnsStartAt1": false})
	c.ok("launch", map[string]any{"program": program, "stopOnEntry": true})
	c.until(isEvent("initialized"))
	bp := c.ok("setBreakpoints", map[string]any{"source": map[string]any{"path": program}, "breakpoints": []map[string]any{{"line": 3}}}).(*godap.SetBreakpointsResponse)
	if b := bp.Body.Breakpoints[0]; !b.Verified || b.Line != 2 {
		t.Errorf("0-based line 3 (validate's args) should move to 0-based 2: %+v", b)
	}
	other := c.ok("setBreakpoints", map[string]any{"source": map[string]any{"path": "/elsewhere/plan.json"}, "breakpoints": []map[string]any{{"line": 1}}}).(*godap.SetBreakpointsResponse)
	if b := other.Body.Breakpoints[0]; b.Verified || !strings.Contains(b.Message, "not the plan being debugged") {
		t.Errorf("a breakpoint in another file: %+v", b)
	}
	c.ok("configurationDone", nil)
	c.stopped()
	st := c.ok("stackTrace", map[string]any{"threadId": 1}).(*godap.StackTraceResponse)
	if f := st.Body.StackFrames[0]; f.Line != 1 || f.Column != 2 {
		t.Errorf("0-based frame position: %d:%d, want 1:2", f.Line, f.Column)
	}
	r, _ = c.call("configurationDone", nil)
	if r.GetResponse().Success {
		t.Errorf("a second configurationDone was accepted")
	}
}

// TestBusy: while a tool runs, next, continue and setVariable are
// refused with what to do; the frames can still be read.
func TestBusy(t *testing.T) {
	cat, err := mockserver.Load("slow.json", []byte(`{"tools": [{"name": "slow", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}, "result": {"ok": true}, "delay": "1h"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	program := writePlan(t, `{"steps": [{"id": "wait", "tool": "slow", "args": {"n": 1}}]}`)
	c := start(t, cat)
	c.launch(program, true, []string{"step-failed"})
	c.stopped()
	sc := c.ok("scopes", map[string]any{"frameId": 1}).(*godap.ScopesResponse)
	c.ok("next", map[string]any{"threadId": 1})
	c.until(func(m godap.Message) bool {
		o, ok := m.(*godap.OutputEvent)
		return ok && strings.HasSuffix(o.Body.Output, "calling the tool\n")
	})
	for _, cmd := range []string{"next", "continue", "stepIn"} {
		r, _ := c.call(cmd, map[string]any{"threadId": 1})
		if r.GetResponse().Success || !strings.Contains(r.GetResponse().Message, "pause") {
			t.Errorf("%s while running: %+v", cmd, r.GetResponse())
		}
	}
	r, _ := c.call("setVariable", map[string]any{"variablesReference": sc.Body.Scopes[0].VariablesReference, "name": "n", "value": "2"})
	if r.GetResponse().Success {
		t.Errorf("setVariable while running was accepted")
	}
	c.ok("stackTrace", map[string]any{"threadId": 1})
	c.ok("terminate", nil)
	c.until(isEvent("terminated"))
	c.ok("disconnect", nil)
	if err := <-c.done; err != nil {
		t.Fatal(err)
	}
}

// TestNoDebugAndCwd: "Run Without Debugging" runs to the end past
// breakpoints and failures; a relative program is found in cwd.
func TestNoDebugAndCwd(t *testing.T) {
	program := writePlan(t, `{"steps": [
  {"id": "backup", "tool": "create_backup", "args": {"database": "broken"}}
]}`)
	c := start(t, nil)
	c.ok("initialize", map[string]any{"adapterID": "planctl"})
	c.ok("launch", map[string]any{"program": "plan.json", "cwd": filepath.Dir(program), "noDebug": true, "stopOnEntry": true})
	c.until(isEvent("initialized"))
	c.ok("setBreakpoints", map[string]any{"source": map[string]any{"path": program}, "breakpoints": []map[string]any{{"line": 2}}})
	c.ok("configurationDone", nil)
	m, seen := c.until(func(m godap.Message) bool { return isEvent("exited")(m) || isEvent("stopped")(m) })
	e, ok := m.(*godap.ExitedEvent)
	if !ok || e.Body.ExitCode != 1 {
		t.Fatalf("noDebug: %+v", m)
	}
	var partial bool
	for _, m := range seen {
		if o, ok := m.(*godap.OutputEvent); ok && strings.Contains(o.Body.Output, `"status": "partial"`) {
			partial = true
		}
	}
	if !partial {
		t.Errorf("no partial response in the output")
	}
	c.until(isEvent("terminated"))
}

// TestLargeResult: an array is paged (start, count), a long value's
// preview is cut short, and deep values expand without parsing again.
func TestLargeResult(t *testing.T) {
	var items []string
	for i := range 300 {
		items = append(items, fmt.Sprintf(`{"n": %d, "big": 1234567890123456789%d}`, i, i%10))
	}
	cat, err := mockserver.Load("big.json", []byte(`{"tools": [{"name": "list", "inputSchema": {"type": "object"}, "result": {"items": [`+strings.Join(items, ",")+`]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	program := writePlan(t, `{"steps": [{"id": "l", "tool": "list", "args": {}}, {"id": "m", "tool": "list", "args": {}}]}`)
	c := start(t, cat)
	c.launch(program, false, []string{"step-failed"}, godap.SourceBreakpoint{Line: 1})
	// Line 1 holds both steps: the breakpoint goes on the first, where the
	// run stops before anything runs.
	if s := c.stopped(); s.Body.Reason != "breakpoint" {
		t.Fatalf("a breakpoint on the first step: %+v", s.Body)
	}
	c = start(t, cat)
	c.launch(program, true, []string{"step-failed"})
	c.stopped()
	c.ok("next", map[string]any{"threadId": 1})
	c.stopped()
	sc := c.ok("scopes", map[string]any{"frameId": 1}).(*godap.ScopesResponse)
	res := c.ok("variables", map[string]any{"variablesReference": sc.Body.Scopes[1].VariablesReference}).(*godap.VariablesResponse)
	it := res.Body.Variables[0]
	if it.Name != "items" || it.IndexedVariables != 300 || !strings.HasSuffix(it.Value, "…") || len(it.Value) > 130 {
		t.Fatalf("items: %+v", it)
	}
	page := c.ok("variables", map[string]any{"variablesReference": it.VariablesReference, "start": 250, "count": 10}).(*godap.VariablesResponse)
	if len(page.Body.Variables) != 10 || page.Body.Variables[0].Name != "250" {
		t.Fatalf("page: %+v", page.Body.Variables)
	}
	el := c.ok("variables", map[string]any{"variablesReference": page.Body.Variables[3].VariablesReference}).(*godap.VariablesResponse)
	if v := el.Body.Variables[1]; v.Name != "big" || v.Value != "12345678901234567893" || v.EvaluateName != `{"output_by_reference": {"l": ["items", 253, "big"]}}` {
		t.Fatalf("element 253: %+v", el.Body.Variables)
	}
}
