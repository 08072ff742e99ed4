package mcpserver_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/mcpserver"
)

// A session its client abandoned (no DELETE) is ended once idle for
// SessionIdleTimeout: nothing piles up on a long-running server.
func TestAbandonedSessionEnds(t *testing.T) {
	s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()})
	hs := &http.Server{}
	h := s.NewHTTP(hs, mcpserver.HTTPOptions{SessionIdleTimeout: time.Second})
	ts := httptest.NewServer(hs.Handler)
	t.Cleanup(func() { ts.Close(); h.Streamable().Shutdown(context.Background()) })
	url := ts.URL + mcpserver.Endpoint

	send := func(session, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := send("", initBody)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	const ping = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if code := send(id, ping).StatusCode; code != 200 {
		t.Fatalf("ping in the session: %d", code)
	}
	// A session id the server did not issue is refused: 404.
	if code := send("mcp-session-00000000-0000-4000-8000-000000000000", ping).StatusCode; code != http.StatusNotFound {
		t.Errorf("ping in a made-up session: %d, want 404", code)
	}
	// A session its client ended stays ended.
	ended := send("", initBody).Header.Get("Mcp-Session-Id")
	del, _ := http.NewRequest(http.MethodDelete, url, nil)
	del.Header.Set("Mcp-Session-Id", ended)
	if resp, err := http.DefaultClient.Do(del); err != nil || resp.StatusCode != 200 {
		t.Fatalf("DELETE: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if code := send(ended, ping).StatusCode; code != http.StatusNotFound {
		t.Errorf("ping in an ended session: %d, want 404", code)
	}
	// Leave it idle longer than the timeout and the sweeper's period (1s):
	// a request then gets 404, which tells a client to start a new
	// session. (Each try touches the session, so each waits again.)
	for i := 0; ; i++ {
		time.Sleep(3 * time.Second)
		code := send(id, ping).StatusCode
		if code == http.StatusNotFound {
			break
		}
		if i == 10 {
			t.Fatalf("the idle session still answers %d", code)
		}
	}
}
