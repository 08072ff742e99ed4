package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/sources"
)

// mockHTTP serves the demo catalog over Streamable HTTP, requiring a
// bearer token, and counts the calls whose handler saw cancellation.
func mockHTTP(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var cancelled atomic.Int32
	cat := mockserver.Demo()
	watched, _ := plan.NewCatalog(cat.Source, cat.Tools, plan.CallerFunc(func(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
		res, err := cat.Call(ctx, tool, args)
		if ctx.Err() != nil {
			cancelled.Add(1)
		}
		return res, err
	}))
	h := server.NewStreamableHTTPServer(mockserver.NewMCPServer(watched, "test"), server.WithEndpointPath("/mcp"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "missing or wrong token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &cancelled
}

// Over Streamable HTTP with a header: the mock catalog served by mcp-go
// reads back as the same catalog (sharable parameters as x-sharable marks),
// calls map back to the same values, errors stay errors, and a step
// timeout cancels the call on the server.
func TestHTTPUpstream(t *testing.T) {
	t.Parallel()
	srv, cancelled := mockHTTP(t)
	if _, err := Open(context.Background(), Config{URL: srv.URL + "/mcp"}); err == nil {
		t.Fatal("no token, yet the server was opened")
	}
	u, err := Open(context.Background(), Config{URL: srv.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	demo := mockserver.Demo()
	for _, want := range demo.Tools {
		got := u.Catalog().Tool(want.Name)
		if got == nil {
			t.Fatalf("%s missing", want.Name)
		}
		if string(got.OutputSchema) != string(want.OutputSchema) || got.Description != want.Description {
			t.Errorf("%s: output schema %s, want %s", want.Name, got.OutputSchema, want.OutputSchema)
		}
		for _, p := range sources.Properties(want.InputSchema) {
			if got.IsSharable(p) != want.IsSharable(p) {
				t.Errorf("%s.%s: sharable %v, want %v", want.Name, p, got.IsSharable(p), want.IsSharable(p))
			}
		}
		if want.ReadOnly() != got.ReadOnly() {
			t.Errorf("%s: readOnlyHint lost", want.Name)
		}
	}
	if u.Catalog().Sharing != plan.SharingMarked {
		t.Errorf("policy %v", u.Catalog().Sharing)
	}
	for _, c := range []struct{ tool, args string }{
		{"create_backup", `{"database":"prod"}`},
		{"create_backup", `{"database":"broken"}`},
		{"echo", `{"value":[1,12345678901234567890,"x"]}`},
		{"echo", `{"value":"plain"}`},
	} {
		want, _ := demo.Call(context.Background(), c.tool, json.RawMessage(c.args))
		got, err := u.Call(context.Background(), c.tool, json.RawMessage(c.args))
		if err != nil || got.IsError != want.IsError || got.Error != want.Error || string(got.Value) != string(want.Value) {
			t.Errorf("%s %s: got %+v %v, want %+v", c.tool, c.args, got, err, want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := u.Call(ctx, "generate_report", json.RawMessage(`{"database":"prod"}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow call: %v", err)
	}
	for i := 0; cancelled.Load() == 0; i++ {
		if i > 500 {
			t.Fatal("the server's handler never saw the cancellation")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An HTTP server that goes away gives a clear error, not a hang; once it
// is back, Reconnect makes the source usable again.
func TestHTTPServerGone(t *testing.T) {
	t.Parallel()
	srv, _ := mockHTTP(t)
	cfg := Config{URL: srv.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}}
	u, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	srv.CloseClientConnections()
	srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err = u.Call(ctx, "echo", json.RawMessage(`{"value":1}`))
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "upstream server") {
		t.Fatalf("call to a closed server: %v", err)
	}
	t.Log(err)
	if err := u.Reconnect(ctx); err == nil {
		t.Fatal("reconnected to a closed server")
	}
	if _, err := u.Call(ctx, "echo", json.RawMessage(`{"value":1}`)); err == nil || !strings.Contains(err.Error(), "the last restart failed") {
		t.Fatalf("a call after a failed restart: %v", err)
	}
}
