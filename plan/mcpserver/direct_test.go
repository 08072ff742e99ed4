package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/plantest"
)

// twin is one request sent to two stateless servers alike but for the
// direct path: one answers plain execute_plan calls directly (direct.go),
// the other hands every request to mcp-go.
type twin struct {
	direct, viaMCP *twinSide
}

type twinSide struct {
	h   *HTTP
	s   *Server
	log *plantest.Buffer
	url string
	hs  http.Handler
	// served is told when the handler has returned, its log line written
	// (over a socket the client can read the answer before that).
	served chan struct{}
}

func newTwin(t testing.TB, opts Options, listen bool) *twin {
	side := func(direct bool) *twinSide {
		o := opts
		o.Catalog = mockserver.Demo()
		buf := &plantest.Buffer{}
		o.Logger = slog.New(slog.NewTextHandler(buf, nil))
		s := New(o)
		hs := &http.Server{}
		h := s.NewHTTP(hs, HTTPOptions{Stateless: true, AuthToken: "tok"})
		h.direct = direct
		ts := &twinSide{h: h, s: s, log: buf, hs: hs.Handler, served: make(chan struct{}, 1)}
		if listen {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				defer func() { ts.served <- struct{}{} }()
				hs.Handler.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			ts.url = srv.URL + Endpoint
		}
		return ts
	}
	return &twin{direct: side(true), viaMCP: side(false)}
}

// httpAnswer is what a client and the log saw of one request.
type httpAnswer struct {
	status int
	header http.Header
	body   string
	log    string
}

var logNoise = regexp.MustCompile(`(time|duration|remote|goroutines|stack)=("(?:[^"\\]|\\.)*"|\S+)`)

func (s *twinSide) send(t testing.TB, body string, hdr map[string]string) httpAnswer {
	var req *http.Request
	var err error
	if s.url != "" {
		req, err = http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	} else {
		req = httptest.NewRequest(http.MethodPost, Endpoint, strings.NewReader(body))
	}
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	for k, v := range hdr {
		switch {
		case k == "Host":
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	var a httpAnswer
	if s.url != "" {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		<-s.served
		a = httpAnswer{status: resp.StatusCode, header: resp.Header, body: string(b)}
	} else {
		rec := httptest.NewRecorder()
		s.hs.ServeHTTP(rec, req)
		a = httpAnswer{status: rec.Code, header: rec.Header(), body: rec.Body.String()}
	}
	a.header = a.header.Clone()
	a.header.Del("Date")
	a.log = logNoise.ReplaceAllString(s.log.Take(), "$1=_")
	return a
}

// compare sends body to both servers and fails on any difference; it
// returns whether the direct path answered.
func (tw *twin) compare(t testing.TB, name, body string, hdr map[string]string) bool {
	t.Helper()
	before := tw.direct.h.directServed.Load()
	d := tw.direct.send(t, body, hdr)
	direct := tw.direct.h.directServed.Load() > before
	m := tw.viaMCP.send(t, body, hdr)
	if tw.viaMCP.h.directServed.Load() != 0 {
		t.Fatal("the server without the direct path used it")
	}
	if d.status != m.status || d.body != m.body || fmt.Sprint(d.header) != fmt.Sprint(m.header) || d.log != m.log {
		t.Errorf("%s (direct path: %v): the answers differ\nbody: %s\ndirect: %d %v\n%s\nlog:\n%s\nmcp-go: %d %v\n%s\nlog:\n%s",
			name, direct, body, d.status, d.header, d.body, d.log, m.status, m.header, m.body, m.log)
	}
	return direct
}

func call(id, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"execute_plan","arguments":` + args + `}}`
}

// TestDirectSameAsMCPGo sends plain execute_plan calls and their
// near-misses to a server with the direct path and to one without, over
// real sockets, and compares status, headers, body and log lines. Each
// case also says whether the direct path must answer it, so that a path
// that never answers (or answers what it must not) fails too.
func TestDirectSameAsMCPGo(t *testing.T) {
	plans := map[string]string{
		"backup":   `{"steps":[{"id":"b","tool":"create_backup","args":{"database":"prod"}},{"id":"v","tool":"validate_backup","args":{"backup_id":{"output_by_reference":{"b":["backup_id"]}}}}]}`,
		"spaced":   "{ \"steps\" : [ {\"id\":\"b\", \"tool\":\"create_backup\",\n\t\"args\":{\"database\":\"prod\"}} ] }",
		"refused":  `{"steps":[{"id":"n","tool":"notify","args":{"channel":{"output_by_reference":{"x":[]}},"message":"hi"}}]}`,
		"html":     `{"steps":[{"id":"e","tool":"echo","args":{"value":"<script>&amp;</script> \u2028 \u2029 é 😀 \\\"q\\\""}}]}`,
		"failing":  `{"steps":[{"id":"e","tool":"echo","args":{"value":1}},{"id":"f","tool":"no_such_tool","args":{}}]}`,
		"empty":    `{}`,
		"nosteps":  `{"steps":[]}`,
		"badsteps": `{"steps":"x"}`,
		"badref":   `{"steps":[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":{"a":"x"}}}}]}`,
		"numbers":  `{"steps":[{"id":"e","tool":"echo","args":{"value":[1e300,-0.0,12345678901234567890,0.1]}}]}`,
	}
	for name, b := range plantest.Files("../../samples/*.json") {
		if strings.Contains(string(b), "generate_report") || strings.Contains(string(b), "run_migration") {
			continue // tools that sleep
		}
		plans[fmt.Sprint("sample ", name)] = string(bytes.TrimSpace(b))
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range plans {
			if !yield(k) {
				return
			}
		}
	})
	for _, opts := range []Options{{}, {NoPreflight: true, ConciergeWire: true}} {
		tw := newTwin(t, opts, true)
		for _, name := range names {
			if !tw.compare(t, name, call("7", plans[name]), nil) {
				t.Errorf("%s: the direct path did not answer a plain call", name)
			}
		}
		for _, id := range []string{`1`, `0`, `-5`, `1.0`, `1e3`, `1.5`, `-0`, `12345678901234567890`, `"a"`, `""`, `"<&>"`, `"\u00e9"`, `"é"`, `"\ud800"`, `"\u2028"`} {
			if !tw.compare(t, "id "+id, call(id, plans["backup"]), nil) {
				t.Errorf("id %s: the direct path did not answer", id)
			}
		}
		direct := map[string]struct {
			body string
			hdr  map[string]string
		}{
			"members in another order": {`{"params":{"arguments":` + plans["backup"] + `,"name":"execute_plan"},"method":"tools/call","id":3,"jsonrpc":"2.0"}`, nil},
			"space around":             {" \n" + call("3", plans["spaced"]) + "\n\n", nil},
			"space inside":             {"{ \"jsonrpc\" : \"2.0\" ,\n \"id\" : 3 , \"method\" : \"tools/call\" , \"params\" : { \"name\" : \"execute_plan\" , \"arguments\" : " + plans["backup"] + " } }", nil},
			"charset":                  {call("3", plans["backup"]), map[string]string{"Content-Type": "application/json; charset=utf-8"}},
			"media type case":          {call("3", plans["backup"]), map[string]string{"Content-Type": "Application/JSON"}},
			"no protocol header":       {call("3", plans["backup"]), map[string]string{"MCP-Protocol-Version": ""}},
			"older protocol":           {call("3", plans["backup"]), map[string]string{"MCP-Protocol-Version": "2025-03-26"}},
			"localhost":                {call("3", plans["backup"]), map[string]string{"Host": "localhost"}},
		}
		for name, c := range direct {
			if !tw.compare(t, name, c.body, c.hdr) {
				t.Errorf("%s: the direct path did not answer", name)
			}
		}
		viaMCP := map[string]struct {
			body string
			hdr  map[string]string
		}{
			"progress token":       {`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_plan","_meta":{"progressToken":"p"},"arguments":` + plans["backup"] + `}}`, nil},
			"other _meta":          {`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{},"name":"execute_plan","arguments":{}}}`, nil},
			"extra member":         {`{"jsonrpc":"2.0","id":3,"method":"tools/call","extra":1,"params":{"name":"execute_plan","arguments":{}}}`, nil},
			"extra param":          {`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_plan","task":{},"arguments":{}}}`, nil},
			"id twice":             {`{"jsonrpc":"2.0","id":3,"id":4,"method":"tools/call","params":{"name":"execute_plan","arguments":{}}}`, nil},
			"arguments twice":      {`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[]},"arguments":` + plans["backup"] + `}}`, nil},
			"key in capitals":      {`{"jsonrpc":"2.0","ID":3,"method":"tools/call","params":{"name":"execute_plan","arguments":{}}}`, nil},
			"escaped key":          {`{"jsonrpc":"2.0","\u0069d":3,"method":"tools/call","params":{"name":"execute_plan","arguments":{}}}`, nil},
			"escaped name":         {`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute\u005fplan","arguments":` + plans["backup"] + `}}`, nil},
			"no arguments":         {`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_plan"}}`, nil},
			"null arguments":       {`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_plan","arguments":null}}`, nil},
			"array arguments":      {call("3", `[1]`), nil},
			"null id":              {call("null", plans["backup"]), nil},
			"no id":                {`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"execute_plan","arguments":{}}}`, nil},
			"object id":            {call(`{"a":1}`, plans["backup"]), nil},
			"id past a double":     {call("1e400", plans["backup"]), nil},
			"old JSON-RPC":         {`{"jsonrpc":"1.0","id":3,"method":"tools/call","params":{"name":"execute_plan","arguments":{}}}`, nil},
			"other tool":           {`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, nil},
			"NaN in the plan":      {call("3", `{"steps":[{"id":"e","tool":"echo","args":{"value":NaN}}]}`), nil},
			"not UTF-8":            {call("3", "{\"steps\":[{\"id\":\"e\",\"tool\":\"echo\",\"args\":{\"value\":\"\xff\xfe\"}}]}"), nil},
			"batch":                {`[` + call("3", plans["backup"]) + `]`, nil},
			"tools/list":           {`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, nil},
			"text/plain":           {call("3", plans["backup"]), map[string]string{"Content-Type": "text/plain"}},
			"no content type":      {call("3", plans["backup"]), map[string]string{"Content-Type": ""}},
			"modern protocol":      {call("3", plans["backup"]), map[string]string{"MCP-Protocol-Version": "2026-07-28"}},
			"unknown protocol":     {call("3", plans["backup"]), map[string]string{"MCP-Protocol-Version": "1999-01-01"}},
			"foreign Host":         {call("3", plans["backup"]), map[string]string{"Host": "evil.example"}},
			"a session id made up": {call("3", plans["backup"]), map[string]string{"Mcp-Session-Id": "made-up"}},
			"not JSON":             {`{"jsonrpc":"2.0","id":3,"method":"tools/call",`, nil},
			"trailing text":        {call("3", plans["backup"]) + ` x`, nil},
			"cancelled":            {`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`, nil},
			"method as a number":   {`{"jsonrpc":"2.0","id":3,"method":1,"params":{"name":"execute_plan","arguments":{}}}`, nil},
			"params as an array":   {`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[]}`, nil},
			"tools/call as a text": {`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"x":"tools/call"}}`, nil},
		}
		for name, c := range viaMCP {
			if tw.compare(t, name, c.body, c.hdr) {
				t.Errorf("%s: the direct path answered what it must leave to mcp-go", name)
			}
		}
	}
}

// TestDirectPanic: a bug in the handler (a panic, an error, no result)
// is answered by planctl on both paths alike, as the Python SDK answers a
// tool that raises: an isError result that says so.
func TestDirectPanic(t *testing.T) {
	for name, c := range map[string]struct {
		h    func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error)
		want string
	}{
		"panic": {func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom <&>") },
			`planctl failed while answering execute_plan: boom <&> (a bug in planctl: please report it with serve's log)`},
		"no result": {func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil },
			`planctl gave no answer to execute_plan (a bug in planctl: please report it with serve's log)`},
		"error": {func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("e <1>")
		}, `planctl failed while answering execute_plan: e <1> (a bug in planctl: please report it with serve's log)`},
	} {
		tw := newTwin(t, Options{}, true)
		for _, s := range []*Server{tw.direct.s, tw.viaMCP.s} {
			s.handler = c.h
		}
		if !tw.compare(t, name, call(`"p"`, `{}`), nil) {
			t.Errorf("%s: the direct path did not answer", name)
		}
		a := tw.direct.send(t, call(`"p"`, `{}`), nil)
		want := `{"jsonrpc":"2.0","id":"p","result":{"content":[{"type":"text","text":` + jsonQuote(c.want) + `}],"isError":true}}` + "\n"
		if a.body != want || !strings.Contains(a.log, "a bug in planctl") {
			t.Errorf("%s: got %s, want %s; log:\n%s", name, a.body, want, a.log)
		}
	}
}

// jsonQuote is s as a JSON string without HTML escapes.
func jsonQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// TestDirectOtherResults: results execute_plan does not give today (no
// text, two blocks, structuredContent of another type, a nil raw
// structuredContent) are written as mcp-go writes them.
func TestDirectOtherResults(t *testing.T) {
	results := []*mcp.CallToolResult{
		{Content: []mcp.Content{}},
		{Content: []mcp.Content{mcp.NewTextContent("a"), mcp.NewTextContent("b")}},
		{Content: []mcp.Content{mcp.NewTextContent("a")}, StructuredContent: map[string]any{"z": 1, "a": "<"}},
		{Content: []mcp.Content{mcp.NewTextContent("a")}, StructuredContent: []byte(nil)},
		{Content: []mcp.Content{mcp.NewTextContent("a")}, StructuredContent: []byte(`{"a": 1}`)},
		{Content: []mcp.Content{mcp.NewTextContent("a")}, IsError: true},
		{Content: []mcp.Content{mcp.NewImageContent("AAAA", "image/png")}},
		{Content: []mcp.Content{mcp.NewTextContent("a")}, Result: mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{"k": 1}}}},
	}
	for i, res := range results {
		tw := newTwin(t, Options{}, false)
		for _, s := range []*Server{tw.direct.s, tw.viaMCP.s} {
			s.handler = func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
		}
		if !tw.compare(t, fmt.Sprint("result ", i), call("1", `{}`), nil) {
			t.Errorf("result %d: the direct path did not answer", i)
		}
	}
}

// FuzzDirectSameAsMCPGo sends any body, as a tools/call or not, to both
// servers (in process), with the headers of protocol 2025-11-25 or of
// 2026-07-28, and compares the answers.
//
//	go test ./plan/mcpserver -run '^$' -fuzz FuzzDirectSameAsMCPGo -fuzztime 60s
func FuzzDirectSameAsMCPGo(f *testing.F) {
	for _, seed := range []string{
		call("1", `{"steps":[{"id":"e","tool":"echo","args":{"value":"<a>"}}]}`),
		call(`"x"`, `{"steps":[{"id":"b","tool":"create_backup","args":{"database":"prod"}},{"id":"v","tool":"validate_backup","args":{"backup_id":{"output_by_reference":{"b":["backup_id"]}}}}]}`),
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_plan","_meta":{"progressToken":"p"},"arguments":{}}}`,
		`{"params":{"arguments":{"steps":[]},"name":"execute_plan"},"method":"tools/call","id":1.5,"jsonrpc":"2.0"}`,
		call("1", `{"steps":[{"id":"n","tool":"notify","args":{"channel":{"output_by_reference":{"x":[]}},"message":"hi"}}]}`),
	} {
		f.Add(seed, false)
	}
	modernBody, modernHdr := modernCall("1", `{"steps":[{"id":"e","tool":"echo","args":{"value":"<a>"}}]}`, "")
	f.Add(modernBody, true)
	tw := newTwin(f, Options{MaxSteps: 50}, false)
	f.Fuzz(func(t *testing.T, body string, modern bool) {
		if strings.Contains(body, "generate_report") || strings.Contains(body, "run_migration") || strings.Contains(body, "delay") {
			return // tools that sleep
		}
		var hdr map[string]string
		if modern {
			hdr = modernHdr // protocol 2026-07-28, Mcp-Method and Mcp-Name of a call of execute_plan
		}
		plantest.Bounded(t, len(body), func() { tw.compare(t, "fuzz", body, hdr) })
	})
}

// modernCall is a plain call of protocol 2026-07-28: the version, the
// client's info and capabilities in _meta, and the headers mcp-go's client
// sends with it (mcp.StandardHeaders).
func modernCall(id, args, meta string) (string, map[string]string) {
	if meta == "" {
		meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	}
	params := `{"name":"execute_plan","arguments":` + args + `,"_meta":` + meta + `}`
	hdr := map[string]string{"MCP-Protocol-Version": mcp.ProtocolVersion20260728}
	for k, v := range mcp.StandardHeaders(mcp.ProtocolVersion20260728, mcp.MethodToolsCall, json.RawMessage(params)) {
		hdr[k] = v
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`, hdr
}

// TestDirectModernToMCPGo: calls of protocol 2026-07-28, whose checks and
// result members are mcp-go's, go through mcp-go, and answer alike on
// both servers.
func TestDirectModernToMCPGo(t *testing.T) {
	const plan = `{"steps":[{"id":"b","tool":"create_backup","args":{"database":"prod"}},{"id":"v","tool":"validate_backup","args":{"backup_id":{"output_by_reference":{"b":["backup_id"]}}}}]}`
	const refused = `{"steps":[{"id":"n","tool":"notify","args":{"channel":{"output_by_reference":{"x":[]}},"message":"hi"}}]}`
	for _, opts := range []Options{{}, {NoPreflight: true, ConciergeWire: true, Version: "1.2.3"}} {
		tw := newTwin(t, opts, true)
		for _, c := range []struct{ name, id, args, meta string }{
			{"plan", "1", plan, ""},
			{"refused", `"r<1>"`, refused, ""},
			{"failing step", "2", `{"steps":[{"id":"f","tool":"no_such_tool","args":{}}]}`, ""},
			{"log level", "3", plan, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/logLevel":"debug"}`},
		} {
			body, hdr := modernCall(c.id, c.args, c.meta)
			if tw.compare(t, c.name, body, hdr) {
				t.Errorf("%s: the direct path answered a call of 2026-07-28", c.name)
			}
			for _, side := range []*twinSide{tw.direct, tw.viaMCP} { // both, so that their call numbers stay alike
				if a := side.send(t, body, hdr); a.status != 200 || !strings.Contains(a.body, `"resultType":"complete"`) || !strings.Contains(a.body, `"isError":`) {
					t.Errorf("%s: got %d %s", c.name, a.status, a.body)
				}
			}
		}
	}
}
