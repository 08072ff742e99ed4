package mcpserver_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/mcpserver"
)

// A request body takes its share of --max-answers before it is read: a
// plan that the budget has no room for is answered 503 naming the flag,
// whether its length is declared or it arrives chunked; a small plan is
// served beside it, and the share comes back once a request is answered.
func TestHTTPBodyAdmittedBySize(t *testing.T) {
	s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo(), Logger: slog.New(slog.DiscardHandler)})
	u := httpServer(t, s, mcpserver.HTTPOptions{Stateless: true, MaxAnswers: 1 << 20})
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"e","tool":"echo","args":{"value":"` + strings.Repeat("x", 400_000) + `"}}]}}}`
	small := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"e","tool":"echo","args":{"value":1}}]}}}`
	send := func(body string, chunked bool) (int, string, http.Header) {
		t.Helper()
		var r io.Reader = strings.NewReader(body)
		if chunked {
			r = io.MultiReader(r) // no length known: sent chunked
		}
		req, _ := http.NewRequest(http.MethodPost, u, r)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	for _, chunked := range []bool{false, true} {
		code, body, hd := send(big, chunked)
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "(--max-answers)") || hd.Get("Retry-After") == "" {
			t.Errorf("a 400 KB plan (chunked %v) under a 1 MiB budget: %d %q %v", chunked, code, body, hd)
		}
		for range 3 { // the small plan's share comes back each time
			if code, body, _ := send(small, chunked); code != http.StatusOK || !strings.Contains(body, `\"completed\"`) {
				t.Fatalf("a small plan (chunked %v): %d %.300s", chunked, code, body)
			}
		}
	}
}
