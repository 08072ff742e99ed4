package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/mcpserver"
)

// A session its client abandoned (no DELETE) is ended once idle for
// SessionIdleTimeout: nothing piles up on a long-running server. The test
// runs in a synctest bubble, on the handler itself (no socket, whose waits
// would not count as durably blocked): the sweeper's clock is the bubble's,
// so the idle hours pass without waiting.
func TestAbandonedSessionEnds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()})
		hs := &http.Server{}
		h := s.NewHTTP(hs, mcpserver.HTTPOptions{SessionIdleTimeout: time.Hour})
		defer h.Streamable().Shutdown(context.Background())

		do := func(method, session, body string) *http.Response {
			req := httptest.NewRequest(method, mcpserver.Endpoint, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
			}
			rec := httptest.NewRecorder()
			hs.Handler.ServeHTTP(rec, req)
			return rec.Result()
		}
		send := func(session, body string) *http.Response { return do(http.MethodPost, session, body) }
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
		if code := do(http.MethodDelete, ended, "").StatusCode; code != 200 {
			t.Fatalf("DELETE: %d", code)
		}
		if code := send(ended, ping).StatusCode; code != http.StatusNotFound {
			t.Errorf("ping in an ended session: %d, want 404", code)
		}
		// Used within the timeout, the session lives on.
		time.Sleep(50 * time.Minute)
		if code := send(id, ping).StatusCode; code != 200 {
			t.Fatalf("ping after 50 idle minutes of an hour: %d", code)
		}
		// Idle longer than the timeout and the sweeper's period (half the
		// timeout), a request gets 404, which tells a client to start a
		// new session.
		time.Sleep(time.Hour + 31*time.Minute)
		synctest.Wait()
		if code := send(id, ping).StatusCode; code != http.StatusNotFound {
			t.Errorf("the idle session still answers %d, want 404", code)
		}
	})
}
