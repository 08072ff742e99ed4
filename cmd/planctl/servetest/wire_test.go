package servetest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// wireSession is a `planctl serve` subprocess spoken to in raw JSON-RPC
// lines, as Concierge's differential tests spoke to it: what goes over the
// wire is checked, not what a client library makes of it.
type wireSession struct {
	t      *testing.T
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *syncBuffer
	cmd    *exec.Cmd
}

// close ends the session and waits for serve to exit, its output copied.
func (w *wireSession) close() {
	w.in.Close()
	io.Copy(io.Discard, w.out)
	w.cmd.Wait()
}

func startWire(t *testing.T, args ...string) *wireSession {
	t.Helper()
	cmd := clitest.Command(binary, append([]string{"serve"}, args...)...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	in, out := clitest.Pipes(t, cmd)
	w := &wireSession{t: t, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: stderr, cmd: cmd}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			w.close()
		}
	})
	w.call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *wireSession) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// call sends one request and returns the raw answer line.
func (w *wireSession) call(line string) string {
	w.t.Helper()
	w.send(line)
	got, err := w.out.ReadString('\n')
	if err != nil {
		w.t.Fatalf("no answer to %s: %v", line, err)
	}
	return got
}

// wireAnswer is the parts of a JSON-RPC answer the rows check.
type wireAnswer struct {
	Result *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError           *bool           `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
}

func callLine(args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":` + args + `}}`
}

// TestConciergeWire: Concierge's MCP wire (plan/mcpserver/wire.go), row by
// row, through a real stdio process, with
// planctl's additions (default) and without them (--concierge-wire).
func TestConciergeWire(t *testing.T) {
	t.Parallel()
	const completedText = "{\n  \"status\": \"completed\",\n  \"steps\": {\n    \"a\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": {\n          \"s\": \"caf\\u00e9 \\ud83d\\ude80\",\n          \"f\": 2.5,\n          \"n\": null,\n          \"e\": []\n        }\n      }\n    }\n  }\n}"
	rows := []struct {
		name      string
		line      string
		isError   bool // the result's isError (always present, even false)
		exactErr  bool // isError with --concierge-wire
		text      string
		structure bool // structuredContent present
		code      int  // a JSON-RPC error instead of a result
	}{
		{"a run: json.dumps(indent=2), non-ASCII escaped, floats as repr",
			callLine(`{"steps":[{"id":"a","tool":"echo","args":{"value":{"s":"café 🚀","f":2.50,"n":1e400,"e":[]}}}]}`),
			false, false, completedText, true, 0},
		{"NaN and Infinity run as null",
			callLine(`{"steps":[{"id":"a","tool":"echo","args":{"value":[NaN,-Infinity]}}]}`),
			false, false, "{\n  \"status\": \"completed\",\n  \"steps\": {\n    \"a\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": [\n          null,\n          null\n        ]\n      }\n    }\n  }\n}", true, 0},
		{"a refused plan: {\"error\"}, isError only with planctl's additions",
			callLine(`{"steps":[{"id":"a","tool":"nope","args":{}}]}`),
			true, false, "{\n  \"error\": \"Unknown tool: 'nope'. Available: create_backup, db_stats, echo, generate_report, get_weather, list_users, notify, run_migration, search_locations, send_email, validate_backup, verify_migration\"\n}", true, 0},
		{"a key beside steps raises: the bare message",
			callLine(`{"steps":[],"extra":1}`),
			true, true, "PlanBackend.serve_tools.<locals>.execute_plan() got an unexpected keyword argument 'extra'", false, 0},
		{"no steps raises",
			callLine(`{}`),
			true, true, "PlanBackend.serve_tools.<locals>.execute_plan() missing 1 required positional argument: 'steps'", false, 0},
		{"a malformed reference raises",
			callLine(`{"steps":[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":{"x":"y"}}}}]}`),
			true, true, "output_by_reference path for step 'x' must be an array, got: str", false, 0},
		{"steps \"\" iterates nothing",
			callLine(`{"steps":""}`),
			false, false, "{\n  \"status\": \"completed\",\n  \"steps\": {}\n}", true, 0},
		{"an unknown tool name is an isError result",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			true, true, "Unknown tool: nope", false, 0},
		{"arguments that are a string: -32602",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":"steps"}}`,
			false, false, "", false, -32602},
		{"arguments null: execute_plan() with no steps",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":null}}`,
			true, true, "PlanBackend.serve_tools.<locals>.execute_plan() missing 1 required positional argument: 'steps'", false, 0},
		{"arguments that are an array: -32602",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":[{"id":"a","tool":"echo","args":{}}]}}`,
			false, false, "", false, -32602},
	}
	for _, mode := range []string{"default", "concierge-wire"} {
		args := []string{"--no-preflight"}
		if mode == "concierge-wire" {
			args = append(args, "--concierge-wire")
		}
		t.Run(mode, func(t *testing.T) {
			w := startWire(t, args...)
			for _, row := range rows {
				raw := w.call(row.line)
				var a wireAnswer
				if err := json.Unmarshal([]byte(raw), &a); err != nil {
					t.Fatalf("%s: answer is not JSON: %s", row.name, raw)
				}
				if row.code != 0 {
					if a.Error == nil || a.Error.Code != row.code {
						t.Errorf("%s: want JSON-RPC error %d, got %s", row.name, row.code, raw)
					}
					continue
				}
				if a.Result == nil || a.Result.IsError == nil {
					t.Errorf("%s: want a result with an explicit isError, got %s", row.name, raw)
					continue
				}
				wantErr := row.isError
				if mode == "concierge-wire" {
					wantErr = row.exactErr
				}
				if *a.Result.IsError != wantErr {
					t.Errorf("%s: isError %v, want %v", row.name, *a.Result.IsError, wantErr)
				}
				if len(a.Result.Content) != 1 || a.Result.Content[0].Text != row.text {
					t.Errorf("%s: text\n%q\nwant\n%q", row.name, a.Result.Content, row.text)
				}
				if (len(a.Result.StructuredContent) > 0) != row.structure {
					t.Errorf("%s: structuredContent %s, want present=%v", row.name, a.Result.StructuredContent, row.structure)
				}
			}
			var list struct {
				Result struct {
					Tools []struct {
						Title        string          `json:"title"`
						OutputSchema json.RawMessage `json:"outputSchema"`
					} `json:"tools"`
				} `json:"result"`
			}
			raw := w.call(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			if err := json.Unmarshal([]byte(raw), &list); err != nil || len(list.Result.Tools) != 1 {
				t.Fatalf("tools/list: %s", raw)
			}
			tool := list.Result.Tools[0]
			if tool.Title != "Plan Execution" {
				t.Errorf("title %q, want \"Plan Execution\"", tool.Title)
			}
			if has := len(tool.OutputSchema) > 0; has != (mode == "default") {
				t.Errorf("%s: outputSchema present=%v", mode, has)
			}
		})
	}
}

// TestToolListRendering: `planctl tools --format concierge` renders the
// corners where Concierge's Python shows (docs/concierge.md), through the
// binary.
func TestToolListRendering(t *testing.T) {
	t.Parallel()
	catalog := `{"tools": [
  {"name": "del", "description": "d", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}},
   "outputSchema": {"description": "a` + "\x7f" + `b é"}, "result": {}},
  {"name": "req_str", "description": "s", "inputSchema": {"properties": {"a": {}, "b": {}, "ab": {}}, "required": "ab"}, "result": {}},
  {"name": "req_obj", "description": "o", "inputSchema": {"properties": {"a": {}, "b": {}}, "required": {"b": 0}}, "result": {}},
  {"name": "marks", "description": "m", "inputSchema": {"properties": {
     "x": {"type": "string", "x-sharable": true}, "y": {"type": "string", "X-Sharable": true},
     "w": {"type": "string", "x-sharable": false}}}, "result": {}}
]}`
	path := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(path, []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	got := planctlOut(t, "tools", "--format", "concierge", "--catalog", path)
	want := strings.Join([]string{
		"  del(a?: string)",
		"    d",
		`    returns: {"description":"a\u007fb \u00e9"}`,
		"",
		"  req_str(a: any, b: any, ab?: any)",
		"    s",
		"",
		"  req_obj(a?: any, b: any)",
		"    o",
		"",
		"  marks(x?: string [sharable], y?: string, w?: string)",
		"    m",
	}, "\n") + "\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestResultSchemaReported: a result that breaks its tool's outputSchema is
// a warning on run's stderr and a log line of serve; the response is the
// same as without the check.
func TestResultSchemaReported(t *testing.T) {
	t.Parallel()
	catalog := `{"tools": [{"name": "get", "inputSchema": {"type": "object"},
   "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
   "result": {"id": 5}}]}`
	dir := t.TempDir()
	cpath, ppath := filepath.Join(dir, "catalog.json"), filepath.Join(dir, "plan.json")
	planText := `{"steps":[{"id":"a","tool":"get","args":{}}]}`
	os.WriteFile(cpath, []byte(catalog), 0o644)
	os.WriteFile(ppath, []byte(planText), 0o644)
	cmd := clitest.Command(binary, "run", "--compact", "--catalog", cpath, ppath)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v (%s)", err, stderr.String())
	}
	if want := `{"status":"completed","steps":{"a":{"status":"ok","result":{"id":5}}}}` + "\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	if !strings.Contains(stderr.String(), `warning: the result of step "a" does not match the outputSchema of tool "get": at "/id": got number, want string`) ||
		!strings.Contains(stderr.String(), "[RESULT_SCHEMA]") {
		t.Errorf("stderr lacks the warning: %s", stderr.String())
	}

	w := startWire(t, "--catalog", cpath)
	raw := w.call(callLine(planText))
	if !strings.Contains(raw, `"structuredContent":{"status":"completed","steps":{"a":{"status":"ok","result":{"id":5}}}}`) {
		t.Errorf("serve answered %s", raw)
	}
	w.close() // serve exits: its log is complete
	if log := w.stderr.String(); !strings.Contains(log, "result does not match the outputSchema") || !strings.Contains(log, "code=RESULT_SCHEMA") {
		t.Errorf("serve's log lacks the warning:\n%s", log)
	}
}

// TestConciergeWireHTTP: the same wire over Streamable HTTP (stateless, a
// JSON answer per POST): explicit isError, NaN run as null, an unknown tool
// as an isError result, arguments that are an array as -32602.
func TestConciergeWireHTTP(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, []string{"PLANCTL_AUTH_TOKEN=tok-wire"}, "--stateless", "--no-preflight")
	post := func(body string) string {
		req, _ := http.NewRequest("POST", s.url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok-wire")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	for _, row := range []struct{ body, want string }{
		{callLine(`{"steps":[{"id":"a","tool":"echo","args":{"value":[NaN,1e400]}}]}`),
			`"result":{"content":[{"type":"text","text":"{\n  \"status\": \"completed\",\n  \"steps\": {\n    \"a\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": [\n          null,\n          null\n        ]\n      }\n    }\n  }\n}"}]`},
		{callLine(`{"steps":[]}`), `"structuredContent":{"status":"completed","steps":{}},"isError":false}`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			`"result":{"content":[{"type":"text","text":"Unknown tool: nope"}],"isError":true}`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":[]}}`,
			`"error":{"code":-32602,`},
	} {
		if got := post(row.body); !strings.Contains(got, row.want) {
			t.Errorf("%s\n got: %s\nwant it to contain: %s", row.body, got, row.want)
		}
	}
}

// TestWireGoldensProcess: a real `planctl serve --concierge-wire` process
// answers the requests of plan/mcpserver/testdata/wire/cases.txt with the
// very lines Concierge's own server wrote to them (record.py beside it
// recorded them from the oracle).
func TestWireGoldensProcess(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../../plan/mcpserver/testdata/wire/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	w := startWire(t, "--no-preflight", "--concierge-wire") // initialized: the cases' own initialize is skipped
	var name, request string
	compared := 0
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			name = strings.TrimPrefix(line, "## ")
		case strings.HasPrefix(line, "> "):
			request = strings.TrimPrefix(line, "> ")
		case strings.HasPrefix(line, "< ") && !strings.Contains(name, "[differs"):
			want := strings.TrimPrefix(line, "< ")
			got := strings.TrimSuffix(w.call(request), "\n")
			if strings.Contains(name, "[serverInfo") {
				// planctl names itself there, with its build's version
				// (docs/concierge.md): the rest is compared.
				const recorded = `"serverInfo":{"name":"concierge-oracle","version":"1.29.0"}`
				_, rest, _ := strings.Cut(got, `"serverInfo":{"name":"planctl","version":`)
				version, _, _ := strings.Cut(rest, "}")
				want = strings.Replace(want, recorded, `"serverInfo":{"name":"planctl","version":`+version+"}", 1)
			}
			if got != want {
				t.Errorf("%s:\n got %s\nwant %s", name, got, want)
			}
			compared++
		}
	}
	if compared < 20 {
		t.Errorf("only %d answers compared", compared)
	}
	w.close()
}
