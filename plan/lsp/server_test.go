package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/sourcegraph/jsonrpc2"
)

// client is a JSON-RPC client of a Server served in process over a pipe.
type client struct {
	conn  *jsonrpc2.Conn
	mu    sync.Mutex
	notes []*jsonrpc2.Request
	got   chan struct{}
	done  chan error
}

func (c *client) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if !req.Notif { // client/registerCapability and the like: accepted
		conn.Reply(ctx, req.ID, nil)
	}
	c.mu.Lock()
	c.notes = append(c.notes, req)
	c.mu.Unlock()
	select {
	case c.got <- struct{}{}:
	default:
	}
}

// wait returns the first notification of method for which ok holds.
func (c *client) wait(t *testing.T, method string, ok func(json.RawMessage) bool) json.RawMessage {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		for _, n := range c.notes {
			if n.Method == method && n.Params != nil && ok(*n.Params) {
				c.mu.Unlock()
				return *n.Params
			}
		}
		c.mu.Unlock()
		select {
		case <-c.got:
		case <-deadline:
			t.Fatalf("no %s notification", method)
		}
	}
}

// serve starts a server whose tool sources are opened like the CLI's: a
// catalog file, or the demo catalog for an empty Source.
func serve(t *testing.T) *client {
	t.Helper()
	open := func(_ context.Context, src Source) (*plan.Catalog, func() error, error) {
		if src.Catalog == "" {
			return mockserver.Demo(), nil, nil
		}
		data, err := os.ReadFile(src.Catalog)
		if err != nil {
			return nil, nil, errors.New("cannot read the catalog: " + err.Error())
		}
		c, err := mockserver.Load(src.Catalog, data)
		return c, nil, err
	}
	a, b := net.Pipe()
	c := &client{got: make(chan struct{}, 1), done: make(chan error, 1)}
	go func() { c.done <- NewServer(Options{Open: open}).Serve(a) }()
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(b, jsonrpc2.VSCodeObjectCodec{}), c)
	t.Cleanup(func() { c.conn.Close(); a.Close() })
	return c
}

func (c *client) call(t *testing.T, method string, params, result any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.conn.Call(ctx, method, params, result)
}

// TestBadConfiguration: a misspelt key or a missing catalog in the
// client's options is told to the user, and the server carries on with the
// demo catalog rather than failing.
func TestBadConfiguration(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, ConfigFile), []byte(`{"catalgo": "tools.json"}`), 0o644)
	for _, tc := range []struct {
		opts any
		want string
	}{
		{map[string]any{"catalog": "missing.json"}, "cannot read the catalog"},
		{map[string]any{"catalgo": "tools.json"}, `unknown field "catalgo"`},
		{nil, ConfigFile + `: json: unknown field "catalgo"`},
	} {
		c := serve(t)
		var res map[string]any
		if err := c.call(t, "initialize", map[string]any{"rootUri": pathURI(ws), "capabilities": map[string]any{}, "initializationOptions": tc.opts}, &res); err != nil {
			t.Fatal(err)
		}
		var msg struct{ Message string }
		json.Unmarshal(c.wait(t, "window/showMessage", func(json.RawMessage) bool { return true }), &msg)
		if !strings.Contains(msg.Message, tc.want) || !strings.Contains(msg.Message, "embedded demo catalog instead") {
			t.Errorf("%v: message %s", tc.opts, msg.Message)
		}
		c.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": "file:///p.json", "languageId": "json", "version": 1, "text": `[{"id": "a", "tool": "echo", "args": {"value": 1}}]`}})
		c.wait(t, "textDocument/publishDiagnostics", func(p json.RawMessage) bool { return strings.Contains(string(p), `"diagnostics":[]`) })
	}
}

// TestBadRequests: requests about documents that are not open, positions
// past the end, and requests before initialize are errors, not crashes;
// exit ends Serve.
func TestBadRequests(t *testing.T) {
	c := serve(t)
	var res any
	if err := c.call(t, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///p.json"}, "position": map[string]any{"line": 0, "character": 0}}, &res); err == nil || !strings.Contains(err.Error(), "not initialized") {
		t.Errorf("before initialize: %v", err)
	}
	if err := c.call(t, "initialize", map[string]any{"capabilities": map[string]any{}}, &res); err != nil {
		t.Fatal(err)
	}
	if err := c.call(t, "textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": "file:///nope.json"}, "position": map[string]any{"line": 0, "character": 0}}, &res); err == nil || !strings.Contains(err.Error(), "is not open") {
		t.Errorf("a document that is not open: %v", err)
	}
	c.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///p.json", "languageId": "json", "version": 1, "text": "[" + strings.Repeat("[", 5000)}})
	for _, method := range []string{"textDocument/hover", "textDocument/completion", "textDocument/definition", "textDocument/references", "textDocument/documentSymbol", "textDocument/codeAction"} {
		params := map[string]any{"textDocument": map[string]any{"uri": "file:///p.json"}, "position": map[string]any{"line": 0, "character": 4000},
			"context": map[string]any{"includeDeclaration": true, "diagnostics": []any{}},
			"range":   map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 5, "character": 0}}}
		if err := c.call(t, method, params, &res); err != nil {
			t.Errorf("%s on a deep, broken plan: %v", method, err)
		}
		params["position"] = map[string]any{"line": 99, "character": 0}
		c.call(t, method, params, &res) // an error or nothing, but an answer
	}
	c.wait(t, "textDocument/publishDiagnostics", func(p json.RawMessage) bool { return strings.Contains(string(p), "JSON_SYNTAX") })
	c.call(t, "shutdown", nil, &res)
	c.conn.Notify(context.Background(), "exit", nil)
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after exit")
	}
}

// TestReloadWhileTyping: catalog reloads (file events) interleaved with
// changes to an open plan, with the watcher registrations they cause, under
// the race detector; the last version's diagnostics are against the last
// catalog.
func TestReloadWhileTyping(t *testing.T) {
	ws := t.TempDir()
	demo, err := os.ReadFile("../../mockserver/demo.json")
	if err != nil {
		t.Fatal(err)
	}
	backup, err := os.ReadFile("../../samples/catalogs/backup.json")
	if err != nil {
		t.Fatal(err)
	}
	cat := filepath.Join(ws, "a.json")
	os.WriteFile(cat, demo, 0o644)
	os.WriteFile(filepath.Join(ws, ConfigFile), []byte(`{"catalog": "a.json"}`), 0o644)
	c := serve(t)
	var res any
	if err := c.call(t, "initialize", map[string]any{"rootUri": pathURI(ws),
		"capabilities": map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}}, &res); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c.conn.Notify(ctx, "initialized", map[string]any{})
	text := `{"steps": [{"id": "m", "tool": "run_migration", "args": {"database": "prod", "backup_id": "b", "target_version": "042"}}]}`
	c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file:///p.json", "languageId": "json", "version": 1, "text": text}})
	version := 1
	for i := 0; i < 20; i++ {
		data := demo
		if i%2 == 1 {
			data = backup
		}
		os.WriteFile(cat, data, 0o644)
		c.conn.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": pathURI(cat), "type": 2}}})
		version++
		c.conn.Notify(ctx, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file:///p.json", "version": version},
			"contentChanges": []any{map[string]any{"text": text}}})
	}
	// The last reload was to the backup catalog, which has no run_migration.
	want := fmt.Sprintf(`"version":%d`, version)
	c.wait(t, "textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		return strings.Contains(string(p), want) && strings.Contains(string(p), "UNKNOWN_TOOL")
	})
	c.wait(t, "client/registerCapability", func(p json.RawMessage) bool { return strings.Contains(string(p), "a.json") })
}

// TestCodeActionsBounded: a range over a plan with a hundred fixable
// errors gets the verified fixes of the first maxVerified only (each costs
// a validation of the whole plan), not a wait proportional to the errors.
func TestCodeActionsBounded(t *testing.T) {
	c := serve(t)
	var res any
	if err := c.call(t, "initialize", map[string]any{"capabilities": map[string]any{}}, &res); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`{"steps": [`)
	for i := 0; i < 100; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id": "s%d", "tool": "eco", "args": {"value": 1}}`, i)
	}
	b.WriteString("]}")
	c.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///p.json", "languageId": "json", "version": 1, "text": b.String()}})
	var actions []struct {
		Title       string
		Diagnostics []struct {
			Range struct{ Start struct{ Line int } }
		}
	}
	if err := c.call(t, "textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": "file:///p.json"},
		"range":   map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 100, "character": 0}},
		"context": map[string]any{"diagnostics": []any{}}}, &actions); err != nil {
		t.Fatal(err)
	}
	lines := map[int]bool{}
	for _, a := range actions {
		if !strings.Contains(a.Title, `"echo"`) {
			t.Errorf("unexpected fix %q", a.Title)
		}
		lines[a.Diagnostics[0].Range.Start.Line] = true
	}
	if len(lines) != maxVerified || !lines[0] || !lines[maxVerified-1] {
		t.Errorf("fixes for the diagnostics of lines %v, want the first %d", lines, maxVerified)
	}
}
