package dap_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	godap "github.com/google/go-dap"
	"github.com/planctl/planctl/plan/dap"
)

// TestParseLaunch: the shapes hosts send. VS Code's object is what its
// debug service sends for a launch.json entry (the entry as written, with
// ${...} resolved, plus __configurationTarget, 6 for a folder's
// launch.json, and the __sessionId it adds in launchOrAttach; see IConfig
// in src/vs/workbench/contrib/debug/common/debug.ts); nvim-dap's is its
// configuration table as written, variables expanded (Session:initialize
// in lua/dap/session.lua sends `config` itself as the arguments).
func TestParseLaunch(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"steps": []}`), 0o644)
	notDir := plan
	for _, tc := range []struct {
		name string
		args string
		want func(l dap.Launch) bool
		err  string
	}{
		{name: "VS Code: name is the label, the host's keys are ignored",
			args: `{"type":"planctl","request":"launch","name":"Debug this plan","program":"` + plan + `","cwd":"` + dir + `","catalog":"tools.json","stopOnEntry":true,"__configurationTarget":6,"__sessionId":"8c4fd54f-50ae-47aa-a1e9-d102a902686b"}`,
			want: func(l dap.Launch) bool {
				return l.Name == "Debug this plan" && l.ServerName == "" && l.Program == plan && strings.Join(l.Catalog, ",") == filepath.Join(dir, "tools.json") && l.StopOnEntry && l.Request == "launch" && l.Type == "planctl"
			}},
		{name: "nvim-dap: the table as written",
			args: `{"type":"planctl","request":"attach","name":"Debug this plan","program":"` + plan + `","cwd":"` + dir + `","stopOnEntry":true}`,
			want: func(l dap.Launch) bool { return l.Request == "attach" && l.Program == plan }},
		{name: "unknown keys, objects and nulls are ignored",
			args: `{"program":"plan.json","cwd":"` + dir + `","preLaunchTask":"build","presentation":{"hidden":false,"group":"x"},"__restart":{"n":1},"port":4711,"internalConsoleOptions":"openOnSessionStart","catalog":null,"someFutureKey":[1,2]}`,
			want: func(l dap.Launch) bool { return l.Program == plan && len(l.Catalog) == 0 }},
		{name: "serverName picks the server in config",
			args: `{"name":"Debug with the db server","program":"plan.json","cwd":"` + dir + `","config":"mcp.json","serverName":"db"}`,
			want: func(l dap.Launch) bool {
				return l.ServerName == "db" && l.Config == filepath.Join(dir, "mcp.json") && l.Name == "Debug with the db server"
			}},
		{name: "the old spelling: name is only the label, never the server",
			args: `{"program":"` + plan + `","config":"/etc/mcp.json","name":"db"}`,
			want: func(l dap.Launch) bool { return l.ServerName == "" && l.Name == "db" }},
		{name: "cwd-relative paths; absolute ones stay",
			args: `{"program":"plan.json","cwd":"` + dir + `","replay":"t/run.trace.json","config":"/abs/mcp.json"}`,
			want: func(l dap.Launch) bool {
				return l.Program == plan && l.Replay == filepath.Join(dir, "t/run.trace.json") && l.Config == "/abs/mcp.json" && l.Cwd == dir
			}},
		{name: "env for a stdio server; console accepted",
			args: `{"program":"` + plan + `","server":"srv --stdio","env":{"TOKEN":"x","EMPTY":""},"console":"integratedTerminal"}`,
			want: func(l dap.Launch) bool {
				return len(l.Env) == 2 && l.Env["TOKEN"] == "x" && l.Env["EMPTY"] == "" && l.Console == "integratedTerminal"
			}},
		{name: "header and headers together",
			args: `{"program":"` + plan + `","url":"http://127.0.0.1:1/mcp","headers":["A: 1"],"header":["B: 2"]}`,
			want: func(l dap.Launch) bool { return strings.Join(l.Headers, ",") == "A: 1,B: 2" }},
		{name: "several sources, as the repeatable flags; mcpRoot and serverLog from cwd",
			args: `{"program":"plan.json","cwd":"` + dir + `","server":["a --stdio","b"],"url":"http://127.0.0.1:1/mcp","catalog":["one.json","/abs/two.json"],"mcpRoot":["data","/srv","file:///x"],"serverLog":"logs/srv.log"}`,
			want: func(l dap.Launch) bool {
				return strings.Join(l.Server, "|") == "a --stdio|b" && strings.Join(l.URL, "|") == "http://127.0.0.1:1/mcp" &&
					strings.Join(l.Catalog, "|") == filepath.Join(dir, "one.json")+"|/abs/two.json" &&
					strings.Join(l.MCPRoot, "|") == filepath.Join(dir, "data")+"|/srv|file:///x" && l.ServerLog == filepath.Join(dir, "logs/srv.log")
			}},
		{name: "server as an object", args: `{"program":"p","server":{"command":"x"}}`, err: `"server" is an object: it takes a string or an array of strings`},
		{name: "mcpRoot as a string", args: `{"program":"p","mcpRoot":"/srv"}`, err: `"mcpRoot" is a string: it takes an array of strings`},
		{name: "headers with two urls", args: `{"program":"p","url":["http://a","http://b"],"headers":["A: 1"]}`, err: `a single "url"`},
		{name: "a wrong type names the attribute and the type it takes",
			args: `{"program":"` + plan + `","stopOnEntry":"yes"}`, err: `the configuration's "stopOnEntry" is a string: it takes true or false`},
		{name: "program as a number", args: `{"program":42}`, err: `"program" is a number: it takes a string`},
		{name: "headers as a string", args: `{"program":"p","url":"http://x","headers":"A: 1"}`, err: `"headers" is a string: it takes an array of strings`},
		{name: "env value as a number", args: `{"program":"p","env":{"N":1}}`, err: `"env" holds a number: each variable's value is a string`},
		{name: "env as a string", args: `{"program":"p","env":"A=1"}`, err: `"env" is a string: it takes an object of strings`},
		{name: "env null", args: `{"program":"p","env":{"N":null}}`, err: `env "N" is null`},
		{name: "serverName without config", args: `{"program":"p","serverName":"db"}`, err: `"serverName" "db" picks a server from "config"`},
		{name: "headers without url", args: `{"program":"p","headers":["A: 1"]}`, err: `"headers" go with "url"`},
		{name: "cwd that is not a folder", args: `{"program":"p","cwd":"` + notDir + `"}`, err: `is not a folder`},
		{name: "no program", args: `{"name":"Debug this plan","type":"planctl","request":"launch"}`, err: `no "program"`},
		{name: "not an object", args: `["plan.json"]`, err: `not a JSON object`},
		{name: "empty", args: ``, err: `the configuration is empty`},
		{name: "a bad stepTimeout", args: `{"program":"p","stepTimeout":"soon"}`, err: `not a duration`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := dap.ParseLaunch(json.RawMessage(tc.args))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if !tc.want(l) {
				t.Errorf("got %+v", l)
			}
		})
	}
}

// TestRestartRereadsThePlan: restart reads the plan from disk again and
// takes the configuration it carries (arguments.arguments): the new
// plan's steps run, its breakpoints move to its lines (a breakpoint
// event says so, the id stays), and a configuration that cannot be
// opened leaves the session as it was.
func TestRestartRereadsThePlan(t *testing.T) {
	program := writePlan(t, backupPlan)
	c := start(t, nil)
	bps := c.launch(program, true, nil, godap.SourceBreakpoint{Line: 4})
	if s := c.stopped(); s.Body.Reason != "entry" {
		t.Fatalf("first run: %+v", s.Body)
	}
	id := bps.Body.Breakpoints[0].Id
	// The plan on disk changes: a step before backup, so validate moves
	// down a line.
	os.WriteFile(program, []byte(`{"steps": [
  {"id": "stats",    "tool": "db_stats",        "args": {"database": "prod"}},
  {"id": "backup",   "tool": "create_backup",   "args": {"database": "prod"}},
  {"id": "validate", "tool": "validate_backup",
   "args": {"backup_id": {"output_by_reference": {"backup": ["backup_id"]}}}}
]}
`), 0o644)
	bad, _ := c.call("restart", map[string]any{"arguments": map[string]any{"name": "Debug this plan", "program": program, "stopOnEntry": "no"}})
	if bad.GetResponse().Success || !strings.Contains(bad.GetResponse().Message, "goes on as it was") {
		t.Fatalf("a restart with a bad configuration: %+v", bad.GetResponse())
	}
	r, seen := c.call("restart", map[string]any{"arguments": map[string]any{"type": "planctl", "request": "launch", "name": "Debug this plan", "program": program, "stopOnEntry": false, "__sessionId": "x"}})
	if !r.GetResponse().Success {
		t.Fatalf("restart: %+v", r.GetResponse())
	}
	m, after := c.until(func(m godap.Message) bool { return isEvent("stopped")(m) || isEvent("terminated")(m) })
	seen = append(seen, after...)
	var moved bool
	for _, m := range seen {
		if e, ok := m.(*godap.BreakpointEvent); ok && e.Body.Reason == "changed" && e.Body.Breakpoint.Id == id && e.Body.Breakpoint.Line == 4 && e.Body.Breakpoint.Verified {
			moved = true
		}
	}
	if !moved {
		t.Errorf("no breakpoint event moving breakpoint %d to line 4: %v", id, seen)
	}
	s, ok := m.(*godap.StoppedEvent)
	if !ok || s.Body.Reason != "breakpoint" {
		t.Fatalf("the new configuration (stopOnEntry false) runs to the breakpoint: %+v", m)
	}
	st := c.ok("stackTrace", map[string]any{"threadId": 1}).(*godap.StackTraceResponse)
	var names []string
	for _, f := range st.Body.StackFrames {
		names = append(names, strings.Fields(f.Name)[0])
	}
	if strings.Join(names, ",") != "validate,backup,stats" || st.Body.StackFrames[0].Line != 4 {
		t.Fatalf("the new plan's frames: %+v", st.Body.StackFrames)
	}
	// Without arguments, restart keeps the configuration and still reads
	// the file: stopOnEntry is false now, the breakpoint stops again.
	os.WriteFile(program, []byte(backupPlan), 0o644)
	c.ok("restart", nil)
	if s := c.stopped(); s.Body.Reason != "breakpoint" {
		t.Fatalf("restart without arguments: %+v", s.Body)
	}
	st = c.ok("stackTrace", map[string]any{"threadId": 1}).(*godap.StackTraceResponse)
	if len(st.Body.StackFrames) != 2 || st.Body.StackFrames[0].Line != 3 {
		t.Fatalf("the old plan back: %+v", st.Body.StackFrames)
	}
	c.ok("terminate", nil)
	c.until(isEvent("terminated"))
	noNulls(t, c)
}

// noNulls fails when a message planctl sent holds a null: where the
// protocol wants an array planctl sends [], and it sends no other null.
func noNulls(t *testing.T, c *client) {
	t.Helper()
	for _, line := range strings.Split(c.log.String(), "\n") {
		if strings.HasPrefix(line, "<- ") && strings.Contains(line, "null") {
			t.Errorf("a message with a null: %s", line)
		}
	}
}

// TestAttachAndFunctionBreakpoints: attach takes the same configuration
// as launch; setFunctionBreakpoints answers an array (each refused), and
// [] for none, never null.
func TestAttachAndFunctionBreakpoints(t *testing.T) {
	program := writePlan(t, backupPlan)
	c := start(t, nil)
	c.ok("initialize", map[string]any{"adapterID": "planctl"})
	r := c.ok("attach", map[string]any{"type": "planctl", "request": "attach", "name": "Attach", "program": "plan.json", "cwd": filepath.Dir(program), "port": 4711})
	if _, ok := r.(*godap.AttachResponse); !ok {
		t.Fatalf("attach answered %T", r)
	}
	c.until(isEvent("initialized"))
	c.ok("setFunctionBreakpoints", map[string]any{"breakpoints": []any{}})
	if !strings.Contains(c.log.String(), `"command":"setFunctionBreakpoints","body":{"breakpoints":[]}`) {
		t.Errorf("setFunctionBreakpoints with none: not []:\n%s", c.log)
	}
	fb := c.ok("setFunctionBreakpoints", map[string]any{"breakpoints": []any{map[string]any{"name": "backup"}}}).(*godap.SetFunctionBreakpointsResponse)
	if b := fb.Body.Breakpoints; len(b) != 1 || b[0].Verified || !strings.Contains(b[0].Message, "line breakpoint") {
		t.Errorf("a function breakpoint: %+v", b)
	}
	again, _ := c.call("launch", map[string]any{"program": program})
	if again.GetResponse().Success || !strings.Contains(again.GetResponse().Message, "already launched") {
		t.Errorf("a second launch: %+v", again.GetResponse())
	}
	noNulls(t, c)
}

// TestAttributesDocumented: every attribute Launch reads has a row in
// docs/debug.md's table, so the table cannot fall behind the code.
func TestAttributesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/debug.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "### Launch and attach attributes")
	table, _, _ = strings.Cut(table, "\n\n`name` is only")
	if !ok {
		t.Fatal("docs/debug.md has no section \"Launch and attach attributes\"")
	}
	names := []string{"env"}
	typ := reflect.TypeOf(dap.Launch{})
	for i := range typ.NumField() {
		if tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); tag != "" && tag != "-" {
			names = append(names, tag)
		}
	}
	for _, n := range names {
		if !regexp.MustCompile("(?m)^\\| [^|]*`" + n + "`").MatchString(table) {
			t.Errorf("the attribute %q has no row in docs/debug.md's table", n)
		}
	}
}

// TestRestartBeforeConfigurationDone: a restart that comes before the
// configuration is done swaps the plan and waits: the run begins at
// configurationDone, once.
func TestRestartBeforeConfigurationDone(t *testing.T) {
	program := writePlan(t, backupPlan)
	c := start(t, nil)
	c.ok("initialize", map[string]any{"adapterID": "planctl"})
	c.ok("launch", map[string]any{"program": program, "stopOnEntry": true})
	c.until(isEvent("initialized"))
	_, seen := c.call("restart", map[string]any{"arguments": map[string]any{"program": program, "stopOnEntry": true}})
	for _, m := range seen {
		if isEvent("stopped")(m) {
			t.Fatalf("the run began before configurationDone: %+v", m)
		}
	}
	r, seen := c.call("configurationDone", nil)
	if !r.GetResponse().Success {
		t.Fatalf("configurationDone: %+v", r.GetResponse())
	}
	for _, m := range seen {
		if isEvent("stopped")(m) {
			t.Fatalf("the run began before configurationDone: %+v", m)
		}
	}
	if s := c.stopped(); s.Body.Reason != "entry" {
		t.Fatalf("after configurationDone: %+v", s.Body)
	}
}

// TestAttributesInTheVSCodeManifest: every attribute a user writes in a
// launch configuration is declared in the VS Code extension's manifest
// (editors/vscode/package.json), for launch and attach, so that VS Code
// completes it and does not flag it; the rest are the host's own or set
// by it.
func TestAttributesInTheVSCodeManifest(t *testing.T) {
	data, err := os.ReadFile("../../editors/vscode/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Contributes struct {
			Debuggers []struct {
				Type  string `json:"type"`
				Attrs map[string]struct {
					Properties map[string]any `json:"properties"`
				} `json:"configurationAttributes"`
			} `json:"debuggers"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	// The host's (type, request, name), an alias (header) and what VS Code
	// sets itself (noDebug, console). The --listen token is the user's to
	// write: the extension does not know it.
	notWritten := map[string]bool{"type": true, "request": true, "name": true, "header": true, "noDebug": true, "console": true}
	names := []string{"env"}
	typ := reflect.TypeOf(dap.Launch{})
	for i := range typ.NumField() {
		if tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); tag != "" && tag != "-" && !notWritten[tag] {
			names = append(names, tag)
		}
	}
	found := false
	for _, d := range m.Contributes.Debuggers {
		if d.Type != "planctl" {
			continue
		}
		found = true
		for _, req := range []string{"launch", "attach"} {
			for _, n := range names {
				if _, ok := d.Attrs[req].Properties[n]; !ok {
					t.Errorf("the %s attribute %q is not in editors/vscode/package.json", req, n)
				}
			}
		}
	}
	if !found {
		t.Fatal("editors/vscode/package.json declares no planctl debugger")
	}
}
