package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/planctl/planctl/plan/runner"
)

// A stdio server's line past MaxMessage is not read whole: the call fails
// naming the bound, the server is stopped, and a reconnect serves again.
// Not in parallel: its 50 MB answers are CPU work that only slows the other
// tests down.
func TestStdioMessageBound(t *testing.T) {
	t.Parallel()
	u, err := Open(context.Background(), Config{Command: []string{broken(t)}, MaxMessage: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	_, err = call(t, u, "big", `{}`) // a 50 MB line
	if err == nil || !strings.Contains(err.Error(), "upstream server sent a message of more than 1048576 bytes (1.0 MiB)") || !strings.Contains(err.Error(), "stopped the server") {
		t.Fatalf("a 50 MB answer with a 1 MiB bound: %v", err)
	}
	if err := u.Reconnect(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantOK(t, u)

	// The default bound takes the 50 MB answer.
	d, _ := open(t)
	if res, err := call(t, d, "big", `{}`); err != nil || len(res.Value) < 50<<20 {
		t.Fatalf("50 MB under the default bound: %v (%d bytes)", err, len(res.Value))
	}
}

// bigHTTPServer serves MCP over streamable HTTP at the returned URL until
// the test ends: "big" answers 5 MB of text, small (the name the test
// calls it by) a little.
func bigHTTPServer(t *testing.T, small string) string {
	t.Helper()
	s := server.NewMCPServer("big", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewToolWithRawSchema("big", "Answer 5 MB of text.", []byte(`{"type":"object"}`)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("x", 5<<20)), nil
	})
	s.AddTool(mcp.NewToolWithRawSchema(small, "Answer a little.", []byte(`{"type":"object"}`)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(`{"value":"still here"}`), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithEndpointPath("/mcp")))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// An HTTP server's answer past MaxMessage is not read whole: the call fails
// naming the bound, and the next call is answered.
func TestHTTPMessageBound(t *testing.T) {
	t.Parallel()
	url := bigHTTPServer(t, "small")
	for _, c := range []struct {
		max int64
		ok  bool
	}{{1 << 20, false}, {0, true}} {
		u, err := Open(context.Background(), Config{URL: url, MaxMessage: c.max})
		if err != nil {
			t.Fatal(err)
		}
		res, err := call(t, u, "big", `{}`)
		if c.ok != (err == nil) || (!c.ok && !strings.Contains(err.Error(), "answer is more than 1048576 bytes (1.0 MiB), planctl's bound on one message from an MCP server")) {
			t.Fatalf("bound %d: %v (%d bytes)", c.max, err, len(res.Value))
		}
		if res, err := call(t, u, "small", `{}`); err != nil || !strings.Contains(string(res.Value), "still here") {
			t.Fatalf("bound %d, the call after: %+v %v", c.max, res, err)
		}
		u.Close()
	}
}

// budget is a runner.Lease of max bytes, as serve's --max-answers.
type budget struct{ max, held int64 }

func (b *budget) Take(step string, n int64) (string, bool) {
	if b.held+n > b.max {
		return fmt.Sprintf("step %q: no room for %d bytes more", step, n), false
	}
	b.held += n
	return "", true
}

// An HTTP answer is taken from the call's lease as it streams: a 5 MB
// answer under a 4 MB budget fails the call with the lease's message
// before it is read whole; the budget holds no more than it allows.
func TestHTTPAnswerReserved(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("big", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewToolWithRawSchema("big", "Answer 5 MB of text.", []byte(`{"type":"object"}`)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("x", 5<<20)), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithEndpointPath("/mcp")))
	t.Cleanup(srv.Close)
	u, err := Open(context.Background(), Config{URL: srv.URL + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	b := &budget{max: 4 << 20}
	_, err = u.Call(runner.WithLease(ctx, b, "s1"), "big", json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), `step "s1": no room for`) {
		t.Fatalf("a 5 MB answer under a 4 MB lease: %v", err)
	}
	if b.held > b.max || b.held == 0 {
		t.Errorf("the lease holds %d bytes of %d", b.held, b.max)
	}
	// With room, the same call is answered, its bytes counted twice.
	b = &budget{max: 16 << 20}
	if res, err := u.Call(runner.WithLease(ctx, b, "s2"), "big", json.RawMessage(`{}`)); err != nil || len(res.Value) < 5<<20 {
		t.Fatalf("with room: %v", err)
	}
	if b.held < 10<<20 {
		t.Errorf("a 5 MB answer took %d bytes of the lease", b.held)
	}
}
