package mcpserver_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/mcpserver"
)

// A request the client cancelled (notifications/cancelled) gets no
// answer over stdio, as MCP asks: the plan stops at its running step and
// nothing with its id is written; the requests after it are answered.
func TestStdioNoAnswerToACancelledRequest(t *testing.T) {
	b, cat := newBlocking(t)
	c := serveStdio(t, mcpserver.New(mcpserver.Options{Catalog: cat}))
	c.send(initStdio)
	c.until(`"id":1`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_plan","arguments":%s}}`, slowPlan))
	<-b.started
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"enough"}}`)
	if err := <-b.ended; err == nil {
		t.Fatal("the tool call was not cancelled")
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	before := c.until(`"id":3`)
	after := c.finish() // the end of input waits for every answer, the dropped one counted
	for _, l := range append(before, after...) {
		if strings.Contains(l, `"id":2`) {
			t.Errorf("the cancelled request was answered: %.300s", l)
		}
	}
}

// Over HTTP with a session likewise, whether the call's stream has
// progress on it or nothing yet: the plan's tool call is cancelled and
// the stream ends with no answer (an SSE stream, so that a client does not
// read an empty body as a broken JSON answer).
func TestHTTPSessionNoAnswerToACancelledRequest(t *testing.T) {
	for _, token := range []string{"", `,"_meta":{"progressToken":"p"}`} {
		b, cat := newBlocking(t)
		url := httpServer(t, mcpserver.New(mcpserver.Options{Catalog: cat}), mcpserver.HTTPOptions{})
		hdr := openSession(t, url)
		sid := hdr["Mcp-Session-Id"]
		type answer struct {
			status int
			ctype  string
			body   string
		}
		got := make(chan answer, 1)
		go func() {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_plan","arguments":%s%s}}`, slowPlan, token)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", sid)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				got <- answer{body: err.Error()}
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			got <- answer{resp.StatusCode, resp.Header.Get("Content-Type"), string(body)}
		}()
		<-b.started
		post(t, url, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"enough"}}`), hdr)
		if err := <-b.ended; err == nil {
			t.Fatal("the tool call was not cancelled")
		}
		a := <-got
		if a.status != http.StatusOK || !strings.HasPrefix(a.ctype, "text/event-stream") || strings.Contains(a.body, `"id":2`) {
			t.Errorf("progress token %q: the cancelled request was answered: %d %s %.300s", token, a.status, a.ctype, a.body)
		}
		if token != "" && !strings.Contains(a.body, `"progress":1`) {
			t.Errorf("the first step's progress is missing: %.300s", a.body)
		}
	}
}
