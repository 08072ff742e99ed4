package mcpserver_test

import (
	"bufio"
	"context"
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
	s := mcpserver.New(mcpserver.Options{Catalog: cat})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// until reads lines until one holds want, and returns those before it.
	until := func(want string) []string {
		t.Helper()
		var seen []string
		for l := range lines {
			if strings.Contains(l, want) {
				return seen
			}
			seen = append(seen, l)
		}
		t.Fatalf("no line with %s; got:\n%s", want, strings.Join(seen, "\n"))
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	until(`"id":1`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_plan","arguments":%s}}`, slowPlan))
	<-b.started
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"enough"}}`)
	if err := <-b.ended; err == nil {
		t.Fatal("the tool call was not cancelled")
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	before := until(`"id":3`)
	inW.Close() // the end of input waits for every answer, the dropped one counted
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var after []string
	for l := range lines {
		after = append(after, l)
	}
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
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		sid := resp.Header.Get("Mcp-Session-Id")
		hdr := map[string]string{"Mcp-Session-Id": sid}
		post(t, url, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), hdr)
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
