package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/mcpserver"
)

// countingCatalog has one tool, "quick", and counts its calls.
func countingCatalog(t *testing.T) (*atomic.Int32, *plan.Catalog) {
	var n atomic.Int32
	tools := []*plan.Tool{{Name: "quick", Description: "Answer at once.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}
	cat, err := plan.NewCatalog("test", tools, plan.CallerFunc(func(context.Context, string, json.RawMessage) (plan.ToolResult, error) {
		n.Add(1)
		return plan.ToolResult{Value: json.RawMessage(`{"ok":true}`)}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return &n, cat
}

const quickCall = `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"q","tool":"quick","args":{}}]}}}`

// A cancellation written before its request, in the same write to
// standard input: the request is not run and not answered (it was ignored,
// and the plan ran and was answered); the same id in a string is another
// request, and is answered. A cancellation that comes after its request's
// answer is too late, not early: the id, reused (as a script does), runs.
func TestStdioCancelBeforeTheRequest(t *testing.T) {
	calls, cat := countingCatalog(t)
	c := serveStdio(t, mcpserver.New(mcpserver.Options{Catalog: cat}))
	c.send(initStdio,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"changed my mind"}}`,
		strings.ReplaceAll(quickCall, "%s", "2"),
		strings.ReplaceAll(quickCall, "%s", `"2"`))
	out := c.until(`"id":"2",`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"2"}}`,
		strings.ReplaceAll(quickCall, "%s", `"2"`))
	out = append(out, c.finish()...) // the end of input waits for the answers of the requests read
	all := strings.Join(out, "\n")
	if strings.Contains(all, `"id":2,`) || strings.Contains(all, `"id":2}`) {
		t.Errorf("the request cancelled before it came was answered:\n%.600s", all)
	}
	if n := strings.Count(all, `"id":"2",`); n != 2 {
		t.Errorf("the request \"2\", sent again after a late cancellation, was answered %d times in all, want 2:\n%.600s", n, all)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d tool calls, want 2 (the plans of \"2\" only)", n)
	}
}

// Over HTTP, in a session: a cancellation posted before its request makes
// the request's stream close with no answer, and its plan does not run;
// another request of the session is answered.
func TestHTTPSessionCancelBeforeTheRequest(t *testing.T) {
	calls, cat := countingCatalog(t)
	url := httpServer(t, mcpserver.New(mcpserver.Options{Catalog: cat}), mcpserver.HTTPOptions{})
	hdr := openSession(t, url)
	post(t, url, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"changed my mind"}}`), hdr)
	status, body := post(t, url, []byte(strings.ReplaceAll(quickCall, "%s", "2")), hdr)
	if status != http.StatusOK || strings.Contains(body, `"id"`) {
		t.Errorf("the request cancelled before it came: %d %.300s", status, body)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("its plan ran: %d tool calls", n)
	}
	status, body = post(t, url, []byte(strings.ReplaceAll(quickCall, "%s", "3")), hdr)
	if status != http.StatusOK || !strings.Contains(body, `"id":3`) || calls.Load() != 1 {
		t.Errorf("the next request: %d %.300s (%d tool calls)", status, body, calls.Load())
	}
	// The cancellation is used up: the id again (a client reusing it)
	// runs; so does it after a cancellation that came too late, once the
	// request was answered.
	if status, body = post(t, url, []byte(strings.ReplaceAll(quickCall, "%s", "2")), hdr); !strings.Contains(body, `"id":2`) {
		t.Errorf("id 2 sent again: %d %.300s", status, body)
	}
	post(t, url, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`), hdr)
	if status, body = post(t, url, []byte(strings.ReplaceAll(quickCall, "%s", "3")), hdr); !strings.Contains(body, `"id":3`) {
		t.Errorf("id 3 sent again after a late cancellation: %d %.300s", status, body)
	}
}
