package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"runtime"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/sourcegraph/jsonrpc2"
)

// TestRequestsWaitingForTheDocument: a request waiting for its document
// (whose analysis lock the test holds, as a long validation would) is
// answered RequestCancelled when the client cancels it, and
// ContentModified when a change comes in before its turn (a documentSymbol,
// and a hover); the next one is answered for the changed text. Each step is awaited through a request
// the server answers on its reading goroutine (an unknown method), after
// the messages sent before it: no timing.
func TestRequestsWaitingForTheDocument(t *testing.T) {
	text := func(id string) string { return `[{"id": "` + id + `", "tool": "echo", "args": {"value": 1}}]` }
	_, c, d := serveOpen(t, text("first"))
	const uri = "file:///p.json"
	var res any
	// processed returns once the server has read every message sent so far.
	processed := func() {
		t.Helper()
		var e *jsonrpc2.Error
		if err := c.call(t, "planctl/nothing", nil, &res); !errors.As(err, &e) || e.Code != jsonrpc2.CodeMethodNotFound {
			t.Fatalf("the sentinel request: %v", err)
		}
	}
	// symbols sends a documentSymbol request (written before it returns)
	// and returns its outcome to come.
	symbols := func(id uint64) chan error {
		w, err := c.conn.DispatchCall(context.Background(), "textDocument/documentSymbol",
			map[string]any{"textDocument": map[string]any{"uri": uri}}, jsonrpc2.PickID(jsonrpc2.ID{Num: id}))
		if err != nil {
			t.Fatal(err)
		}
		out := make(chan error, 1)
		go func() {
			var r []map[string]any
			err := w.Wait(context.Background(), &r)
			if err == nil && (len(r) != 1 || r[0]["name"] != "second") {
				err = errors.New("answered with " + jsonString(r))
			}
			out <- err
		}()
		return out
	}
	code := func(err error) int64 {
		var e *jsonrpc2.Error
		if errors.As(err, &e) {
			return e.Code
		}
		return 0
	}

	d.lock(context.Background())
	waiting := symbols(1000)
	c.conn.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": 1000})
	processed()
	if err := <-waiting; code(err) != codeRequestCancelled {
		t.Errorf("cancelled while waiting: %v, want RequestCancelled", err)
	}

	waiting = symbols(1001)
	hover, err := c.conn.DispatchCall(context.Background(), "textDocument/hover",
		map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 30}})
	if err != nil {
		t.Fatal(err)
	}
	c.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": text("second")}}})
	processed()
	d.unlock()
	if err := <-waiting; code(err) != codeContentModified {
		t.Errorf("overtaken by a change: %v, want ContentModified", err)
	}
	if err := hover.Wait(context.Background(), &res); code(err) != codeContentModified {
		t.Errorf("a hover overtaken by a change: %v (%v), want ContentModified", err, res)
	}
	if err := <-symbols(1002); err != nil {
		t.Errorf("after the change: %v", err)
	}
}

// serveOpen serves a Server in process, initialized, with file:///p.json
// open as text and published.
func serveOpen(t *testing.T, text string) (*Server, *client, *document) {
	t.Helper()
	s := NewServer(Options{Open: func(context.Context, Source) (*plan.Catalog, func() error, error) { return mockserver.Demo(), nil, nil }})
	a, b := net.Pipe()
	go s.Serve(a)
	c := &client{got: make(chan struct{}, 1), done: make(chan error, 1)}
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(b, jsonrpc2.VSCodeObjectCodec{}), c)
	t.Cleanup(func() { c.conn.Close(); a.Close() })
	var res any
	if err := c.call(t, "initialize", map[string]any{"capabilities": map[string]any{}}, &res); err != nil {
		t.Fatal(err)
	}
	c.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///p.json", "languageId": "json", "version": 1, "text": text}})
	c.wait(t, "textDocument/publishDiagnostics", func(json.RawMessage) bool { return true })
	d, err := s.doc("file:///p.json")
	if err != nil {
		t.Fatal(err)
	}
	return s, c, d
}

// TestRequestsBounded: requests that cannot be answered yet (their
// document's lock held) are taken maxInflight at a time; the reading then
// waits for a slot, and every request is answered once they can be.
func TestRequestsBounded(t *testing.T) {
	s, c, d := serveOpen(t, `[{"id": "a", "tool": "echo", "args": {"value": 1}}]`)
	d.lock(context.Background())
	// Sent from a goroutine: once the reading waits for a slot, the
	// server reads no more, and the pipe takes no more.
	sent := make(chan []jsonrpc2.Waiter, 1)
	go func() {
		var waiters []jsonrpc2.Waiter
		for range maxInflight + 10 {
			w, err := c.conn.DispatchCall(context.Background(), "textDocument/documentSymbol",
				map[string]any{"textDocument": map[string]any{"uri": "file:///p.json"}})
			if err != nil {
				break
			}
			waiters = append(waiters, w)
		}
		sent <- waiters
	}()
	taken := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.calls)
	}
	for taken() < maxInflight {
		runtime.Gosched() // until the reading has taken a full load
	}
	select {
	case <-sent:
		t.Errorf("all %d requests were read while none could be answered", maxInflight+10)
	default:
	}
	if n := taken(); n != maxInflight || len(s.slots) != maxInflight {
		t.Errorf("%d requests taken (%d slots) while their document was busy, want %d", n, len(s.slots), maxInflight)
	}
	d.unlock()
	waiters := <-sent
	if len(waiters) != maxInflight+10 {
		t.Fatalf("%d requests sent", len(waiters))
	}
	for i, w := range waiters {
		var r []map[string]any
		if err := w.Wait(context.Background(), &r); err != nil || len(r) != 1 {
			t.Fatalf("request %d: %v %v", i, r, err)
		}
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
