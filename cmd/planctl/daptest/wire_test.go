package daptest

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	godap "github.com/google/go-dap"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// wire is a small DAP client on go-dap's framing, for what the node
// script does not cover: a trace as the program, and --listen.
type wire struct {
	t     *testing.T
	w     io.Writer
	r     *bufio.Reader
	seq   int
	close func() error // ends the adapter started by dapStdio and returns how it exited
}

// call sends a request and returns its response, failing the test if
// the request failed.
func (c *wire) call(command string, args any) godap.ResponseMessage {
	c.t.Helper()
	r := c.request(command, args)
	if !r.GetResponse().Success {
		c.t.Fatalf("%s failed: %s", command, r.GetResponse().Message)
	}
	return r
}

// request sends a request and returns its response, reading past the
// events and responses before it.
func (c *wire) request(command string, args any) godap.ResponseMessage {
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
	for {
		if r, ok := c.read().(godap.ResponseMessage); ok && r.GetResponse().RequestSeq == c.seq {
			return r
		}
	}
}

func (c *wire) read() godap.Message {
	c.t.Helper()
	msg, err := godap.ReadProtocolMessage(c.r)
	if err != nil {
		c.t.Fatalf("reading: %v", err)
	}
	return msg
}

func (c *wire) event(name string) godap.Message {
	c.t.Helper()
	for {
		msg := c.read()
		if e, ok := msg.(godap.EventMessage); ok && e.GetEvent().Event == name {
			return msg
		}
	}
}

// dapStdio starts `planctl dap` over stdio, as an editor does, and
// initializes it. The adapter's input is closed and its end awaited when
// the test ends, unless the test does it first with close.
func dapStdio(t *testing.T) *wire {
	t.Helper()
	cmd := clitest.Command(binary, "dap")
	in, out := clitest.Pipes(t, cmd)
	var once sync.Once
	var waitErr error
	c := &wire{t: t, w: in, r: bufio.NewReader(out)}
	c.close = func() error {
		once.Do(func() { in.Close(); waitErr = cmd.Wait() })
		return waitErr
	}
	t.Cleanup(func() { c.close() })
	c.call("initialize", map[string]any{"adapterID": "planctl"})
	return c
}

// dapDial connects to a `planctl dap --listen` at addr and initializes
// the session.
func dapDial(t *testing.T, addr string) *wire {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &wire{t: t, w: conn, r: bufio.NewReader(conn)}
	c.call("initialize", map[string]any{"adapterID": "planctl"})
	return c
}

// envWorkspace is a folder with envServer as env.sh and files (name to
// content) beside it, for the launches that start it with "cwd".
func envWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "env.sh"), []byte(envServer), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// TestTraceAsProgram: a trace given as the program opens the recorded plan
// with its recorded answers; frames show the plan as a source the client
// asks for (sourceReference), and breakpoints go on its lines.
func TestTraceAsProgram(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "run.trace.json")
	sample, _ := filepath.Abs("../../../samples/tool-error.json")
	if out, err := clitest.Command(binary, "run", "--trace", trace, sample).CombinedOutput(); err != nil && !strings.Contains(string(out), "partial") {
		t.Fatalf("recording: %v\n%s", err, out)
	}
	c := dapStdio(t)
	c.call("launch", map[string]any{"program": trace})
	c.event("initialized")
	bp := c.call("setBreakpoints", map[string]any{"source": map[string]any{"sourceReference": 1}, "breakpoints": []map[string]any{{"line": 4}}}).(*godap.SetBreakpointsResponse)
	if b := bp.Body.Breakpoints[0]; !b.Verified || b.Line != 4 {
		t.Fatalf("breakpoint in the recorded plan: %+v", b)
	}
	c.call("configurationDone", nil)
	s := c.event("stopped").(*godap.StoppedEvent)
	if s.Body.Reason != "breakpoint" {
		t.Fatalf("stopped: %+v", s.Body)
	}
	st := c.call("stackTrace", map[string]any{"threadId": 1}).(*godap.StackTraceResponse)
	f := st.Body.StackFrames[0]
	if f.Source == nil || f.Source.SourceReference != 1 || f.Line != 4 || !strings.HasPrefix(f.Name, "bad_backup") {
		t.Fatalf("top frame: %+v %+v", f, f.Source)
	}
	src := c.call("source", map[string]any{"sourceReference": 1}).(*godap.SourceResponse)
	if !strings.Contains(src.Body.Content, `"id": "bad_backup"`) {
		t.Errorf("source: %q", src.Body.Content)
	}
	c.call("next", map[string]any{"threadId": 1})
	s = c.event("stopped").(*godap.StoppedEvent)
	if s.Body.Reason != "exception" || s.Body.Text != "disk full" {
		t.Errorf("the recorded failure: %+v", s.Body)
	}
	// An edited call the trace never answered halts the run before it.
	sc := c.call("scopes", map[string]any{"frameId": 2}).(*godap.ScopesResponse)
	c.call("setVariable", map[string]any{"variablesReference": sc.Body.Scopes[0].VariablesReference, "name": "database", "value": `"staging"`})
	c.call("next", map[string]any{"threadId": 1})
	s = c.event("stopped").(*godap.StoppedEvent)
	if s.Body.Reason != "pause" || !strings.Contains(s.Body.Text, "give a tool source beside --replay") {
		t.Errorf("the end of the trace's answers: %+v", s.Body)
	}
	c.call("disconnect", nil)
}

// TestListen: --listen serves one client over TCP on loopback, which
// gives the token planctl printed.
func TestListen(t *testing.T) {
	addr, token := startListen(t)
	c := dapDial(t, addr)
	sample, _ := filepath.Abs("../../../samples/backup.json")
	c.call("launch", map[string]any{"program": sample, "token": token})
	c.event("initialized")
	c.call("configurationDone", nil)
	c.event("terminated")
	c.call("disconnect", nil)
}

// TestUpstreamServer: the tools of an MCP server (planctl mock, started
// over stdio as --server starts it); restart reconnects; disconnect stops
// the server with the adapter.
func TestUpstreamServer(t *testing.T) {
	c := dapStdio(t)
	sample, _ := filepath.Abs("../../../samples/backup.json")
	c.call("launch", map[string]any{"program": sample, "server": binary + " mock", "stopOnEntry": true})
	c.event("initialized")
	c.call("configurationDone", nil)
	c.event("stopped")
	c.call("continue", map[string]any{"threadId": 1})
	c.event("terminated")
	c.call("restart", nil)
	if s := c.event("stopped").(*godap.StoppedEvent); s.Body.Reason != "entry" {
		t.Fatalf("after restart: %+v", s.Body)
	}
	c.call("next", map[string]any{"threadId": 1})
	if s := c.event("stopped").(*godap.StoppedEvent); s.Body.Reason != "step" {
		t.Fatalf("next after restart: %+v", s.Body)
	}
	c.call("disconnect", map[string]any{"terminateDebuggee": true})
	if err := c.close(); err != nil {
		t.Errorf("planctl dap after disconnect: %v", err)
	}
}

// envServer is a stdio MCP server whose one tool answers with the
// variable PLANCTL_DAP_ENV and the folder it runs in.
const envServer = `#!/bin/sh
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^{"jsonrpc": *"2.0", *"id": *\([0-9][0-9]*\|"[^"]*"\).*/\1/p')
  case "$line" in
  *'"method":"initialize"'*|*'"method": "initialize"'*)
    v=$(printf '%s' "$line" | sed -n 's/.*"protocolVersion": *"\([^"]*\)".*/\1/p')
    printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"env","version":"1"}}}\n' "$id" "$v" ;;
  *'"method":"tools/list"'*|*'"method": "tools/list"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"env","description":"the environment","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
  *'"method":"tools/call"'*|*'"method": "tools/call"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"var=%s pwd=%s"}]}}\n' "$id" "${PLANCTL_DAP_ENV:-unset}" "$(pwd)" ;;
  *'"method":"ping"'*|*'"method": "ping"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
  esac
done
`

// TestEnvAndCwd: a launch configuration's "env" reaches the stdio server
// planctl starts, which starts in "cwd", as do the relative paths; its
// "name" is only a label, and a restart's new "env" reaches the new
// server.
func TestEnvAndCwd(t *testing.T) {
	ws := envWorkspace(t, map[string]string{
		"plan.json": `{"steps": [{"id": "e", "tool": "env", "args": {}}]}`,
	})
	c := dapStdio(t)
	config := map[string]any{"type": "planctl", "request": "launch", "name": "env check", "program": "plan.json",
		"cwd": ws, "server": "sh env.sh", "env": map[string]any{"PLANCTL_DAP_ENV": "from-launch"}, "console": "integratedTerminal"}
	c.call("launch", config)
	c.event("initialized")
	c.call("configurationDone", nil)
	want := "var=from-launch pwd=" + ws
	if got := c.output("run completed"); !strings.Contains(got, want) {
		t.Errorf("the server's answer: want %q in\n%s", want, got)
	}
	c.event("terminated")
	config["env"] = map[string]any{"PLANCTL_DAP_ENV": "from-restart"}
	c.call("restart", map[string]any{"arguments": config})
	if got := c.output("run completed"); !strings.Contains(got, "var=from-restart") {
		t.Errorf("after a restart with a new env: %s", got)
	}
	c.call("disconnect", nil)
}

// output reads output events up to the one after the event whose text
// has prefix, and returns their texts.
func (c *wire) output(prefix string) string {
	c.t.Helper()
	var b strings.Builder
	seen := false
	for {
		o, ok := c.event("output").(*godap.OutputEvent)
		if !ok {
			continue
		}
		b.WriteString(o.Body.Output)
		if seen {
			return b.String()
		}
		seen = strings.HasPrefix(o.Body.Output, prefix)
	}
}

// try sends a request and returns its response, failed or not.
func (c *wire) try(command string, args any) *godap.Response {
	c.t.Helper()
	return c.request(command, args).GetResponse()
}

// TestOldNameSpelling: "name" once picked the server from "config"; now
// it is the configuration's label, and a configuration written the old
// way is told to write "serverName", never given another server.
// "serverName" picks it.
func TestOldNameSpelling(t *testing.T) {
	ws := envWorkspace(t, map[string]string{
		"plan.json": `{"steps": [{"id": "e", "tool": "env", "args": {}}]}`,
		"mcp.json": `{"mcpServers": {
  "other": {"command": "sh", "args": ["no-such-script.sh"]},
  "env": {"command": "sh", "args": ["env.sh"], "env": {"PLANCTL_DAP_ENV": "from-config"}}
}}`,
	})
	c := dapStdio(t)
	r := c.try("launch", map[string]any{"name": "env", "program": "plan.json", "cwd": ws, "config": "mcp.json"})
	if r.Success || !strings.Contains(r.Message, `pick the server with "serverName" ("name" "env" is only the configuration's label)`) {
		t.Fatalf("the old spelling: %+v", r)
	}
	c.call("launch", map[string]any{"name": "env", "program": "plan.json", "cwd": ws, "config": "mcp.json", "serverName": "env"})
	c.event("initialized")
	c.call("configurationDone", nil)
	if got := c.output("run completed"); !strings.Contains(got, "var=from-config pwd="+ws) {
		t.Errorf("the server serverName picks: %s", got)
	}
	c.call("disconnect", nil)
}

// startListen starts `planctl dap --listen` on a free loopback port and
// returns its address and the token it printed.
func startListen(t *testing.T) (addr, token string) {
	t.Helper()
	cmd := clitest.Command(binary, "dap", "--listen", "127.0.0.1:0")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PLANCTL_DAP_TOKEN=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	m := regexp.MustCompile(`^planctl dap: listening on (\S+); add "token": "([0-9a-f]{64})" to the launch \(or attach\) configuration\n$`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("no address and token: %q %v", line, err)
	}
	return m[1], m[2]
}

// TestListenNeedsToken: over --listen, a second local client (Microsoft's
// DebugClient, connected first) without the token, or with a wrong one,
// launches nothing: the command its configuration names never runs (its
// marker stays absent), and it cannot read a file back with source; its
// open connection keeps no one out. The editor's client, with the token,
// runs the plan; the stranger is then cut off and the port closed. Before,
// whoever connected first ran commands as the developer.
func TestListenNeedsToken(t *testing.T) {
	node := needNode(t)
	addr, token := startListen(t)
	_, port, _ := net.SplitHostPort(addr)
	marker := filepath.Join(t.TempDir(), "marker")
	sample, _ := filepath.Abs("../../../samples/backup.json")
	cmd := clitest.Command(node, "listen.mjs", port, sample, token, marker)
	cmd.Dir = nodeDir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "PASS\n") {
		t.Errorf("listen.mjs: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a client without the token started its server")
	}
}

// TestListenLaunchRefusesNonFiles: a launch of /dev/stdin, a FIFO or a
// device as the program is refused at once, and the session goes on (it
// wedged the adapter before).
func TestListenLaunchRefusesNonFiles(t *testing.T) {
	addr, token := startListen(t)
	c := dapDial(t, addr)
	fifo := filepath.Join(t.TempDir(), "plan.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, program := range []string{"/dev/stdin", fifo, "/dev/zero", "/proc/self/environ"} {
		r := c.try("launch", map[string]any{"program": program, "token": token})
		if r.Success || !strings.Contains(r.Message, "not a regular file") {
			t.Errorf("launch %s: %+v", program, r)
		}
	}
	sample, _ := filepath.Abs("../../../samples/backup.json")
	c.call("launch", map[string]any{"program": sample, "token": token})
	c.event("initialized")
	c.call("disconnect", nil)
}

// TestSeveralServers: a launch with "config" and no "serverName" starts
// every server of the file and joins their tools (a name both have is
// prefixed with the server's); "denyTools" hides tools as --deny-tools
// does, so a plan naming one is refused with the attribute's flag.
func TestSeveralServers(t *testing.T) {
	ws := envWorkspace(t, map[string]string{
		"plan.json":   `{"steps": [{"id": "e", "tool": "b__env", "args": {}}]}`,
		"hidden.json": `{"steps": [{"id": "e", "tool": "a__env", "args": {}}]}`,
		"mcp.json": `{"mcpServers": {
  "a": {"command": "sh", "args": ["env.sh"], "env": {"PLANCTL_DAP_ENV": "from-a"}},
  "b": {"command": "sh", "args": ["env.sh"], "env": {"PLANCTL_DAP_ENV": "from-b"}}
}}`,
	})
	c := dapStdio(t)
	c.call("launch", map[string]any{"name": "both", "program": "plan.json", "cwd": ws, "config": "mcp.json", "denyTools": []string{"a__*"}})
	c.event("initialized")
	c.call("configurationDone", nil)
	if got := c.output("run completed"); !strings.Contains(got, "var=from-b pwd="+ws) {
		t.Errorf("b__env answered: %s", got)
	}
	c.call("disconnect", nil)
	c.close()

	c = dapStdio(t)
	// The launch opens (the debugger steps through a plan with errors); the
	// step fails saying which attribute hid its tool.
	c.call("launch", map[string]any{"name": "both", "program": "hidden.json", "cwd": ws, "config": "mcp.json", "denyTools": []string{"a__*"}, "noDebug": true})
	c.event("initialized")
	c.call("configurationDone", nil)
	if got := c.output("run "); !strings.Contains(got, `'a__env' is hidden by --deny-tools \"a__*\"`) {
		t.Errorf("a plan naming a hidden tool: %s", got)
	}
}

// TestRootsAndServerLog: "mcpRoot" reaches a real server's roots/list
// (server-everything's get-roots-list tool reports what it was given),
// relative to "cwd" as --mcp-root is to planctl's folder; "server" takes
// an array, as --server repeats; "serverLog" names the file the server's
// stderr goes to; and the server's log message about the roots reaches
// the debug console.
func TestRootsAndServerLog(t *testing.T) {
	script, err := filepath.Abs("../upstreamtest/testdata/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	node, pathErr := exec.LookPath("node")
	if _, statErr := os.Stat(script); statErr != nil || pathErr != nil {
		msg := "server-everything is not installed (run .ci/install.sh: npm ci in cmd/planctl/upstreamtest/testdata/node; node on PATH)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, "data"), 0o755)
	os.WriteFile(filepath.Join(ws, "plan.json"), []byte(`{"steps": [{"id": "r", "tool": "get-roots-list", "args": {}}, {"id": "e", "tool": "echo", "args": {"message": "hi"}}]}`), 0o644)
	c := dapStdio(t)
	server := "'" + node + "' '" + script + "' stdio"
	c.call("launch", map[string]any{"name": "roots", "program": "plan.json", "cwd": ws, "server": []string{server},
		"mcpRoot": []string{"data", "file:///srv/other"}, "serverLog": "logs.txt"})
	c.event("initialized")
	c.call("configurationDone", nil)
	// The run's output up to its response (after "run completed"), and
	// server-everything's log message saying it got the roots, which may
	// come before the run ends or after.
	var got string
	for !strings.Contains(got, "Echo: hi") || !strings.Contains(got, "Roots updated") {
		if o, ok := c.event("output").(*godap.OutputEvent); ok {
			got += o.Body.Output
		}
	}
	for _, want := range []string{"file://" + filepath.Join(ws, "data"), "file:///srv/other", "Echo: hi",
		"[log server-everything info everything-server] Roots updated: 2 root(s) received from client\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the run's output lacks %q:\n%s", want, got)
		}
	}
	c.call("disconnect", nil)
	if _, err := os.Stat(filepath.Join(ws, "logs.txt")); err != nil {
		t.Errorf("serverLog: %v", err)
	}
}

// TestUpstreamLogLevelAttribute: "upstreamLogLevel" is sent to the server
// in logging/setLevel, as --upstream-log-level is: the probe server
// (editortest's probe-server.mjs, node only) lists level_LEVEL once a
// client set its level, and the plan calls it.
func TestUpstreamLogLevelAttribute(t *testing.T) {
	probe, err := filepath.Abs("../editortest/testdata/node/probe-server.mjs")
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is not on PATH")
		}
		t.Skip("node is not on PATH")
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "plan.json"), []byte(`{"steps": [{"id": "l", "tool": "level_error", "args": {}}]}`), 0o644)
	c := dapStdio(t)
	c.call("launch", map[string]any{"name": "level", "program": "plan.json", "cwd": ws, "server": "'" + node + "' '" + probe + "'",
		"upstreamLogLevel": "error", "noDebug": true})
	c.event("initialized")
	c.call("configurationDone", nil)
	if got := c.output("run "); !strings.Contains(got, "run completed") {
		t.Errorf("the plan calling level_error: %s", got)
	}
	c.call("disconnect", nil)
}
