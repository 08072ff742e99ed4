package mcpserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/mcpserver"
)

// On protocol 2026-07-28 a method the server lacks is a JSON-RPC error
// (-32601) in a 200 answer: mcp-go's client, which found it, read the 404
// mcp-go's server sent as "session terminated" and dropped the session.
func TestModernMethodNotFoundIsJSONRPC(t *testing.T) {
	for _, stateless := range []bool{true, false} {
		u := httpServer(t, mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()}), mcpserver.HTTPOptions{Stateless: stateless})
		c := httpClient(t, u)
		_, err := c.ListResources(context.Background(), mcp.ListResourcesRequest{})
		if err == nil || errors.Is(err, transport.ErrSessionTerminated) || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("stateless %v: resources/list: %v", stateless, err)
		}
		// The client goes on.
		if _, err := c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
			t.Errorf("stateless %v: tools/list after it: %v", stateless, err)
		}
	}
	// Raw, the status and the body.
	u := httpServer(t, mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()}), mcpserver.HTTPOptions{Stateless: true})
	code, body := post(t, u, []byte(`{"jsonrpc":"2.0","id":5,"method":"foo/bar","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}}`),
		map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "foo/bar"})
	if code != 200 || !strings.Contains(body, `"code":-32601`) {
		t.Errorf("foo/bar: %d %s", code, body)
	}
}
