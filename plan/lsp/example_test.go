package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/lsp"
	"github.com/sourcegraph/jsonrpc2"
)

// The package comment's use: a server on a stream. Here the editor is a
// JSON-RPC connection over an in-memory pipe: it opens a plan with a
// misspelt argument and prints the diagnostic the server publishes.
func ExampleNewServer() {
	openToolSource := func(context.Context, lsp.Source) (*plan.Catalog, func() error, error) {
		return mockserver.Demo(), nil, nil
	}
	editor, stream := net.Pipe()
	s := lsp.NewServer(lsp.Options{Open: openToolSource})
	served := make(chan error, 1)
	go func() { served <- s.Serve(stream) }()

	ctx := context.Background()
	published := make(chan json.RawMessage, 8)
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(editor, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == "textDocument/publishDiagnostics" && req.Params != nil {
				published <- *req.Params
			}
			return nil, nil
		}))
	conn.Call(ctx, "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, nil)
	conn.Notify(ctx, "initialized", map[string]any{})
	conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///tmp/plan.json", "languageId": "json", "version": 1,
		"text": `[{"id": "b", "tool": "create_backup", "args": {"databse": "prod"}}]`}})
	var diags struct {
		Diagnostics []struct {
			Range struct {
				Start struct{ Line, Character int }
			}
			Code    string
			Message string
		}
	}
	json.Unmarshal(<-published, &diags)
	for _, d := range diags.Diagnostics {
		fmt.Printf("%d:%d %s: %s\n", d.Range.Start.Line+1, d.Range.Start.Character+1, d.Code, d.Message)
	}
	conn.Call(ctx, "shutdown", nil, nil)
	conn.Notify(ctx, "exit", nil)
	conn.Close()
	fmt.Println(<-served)
	// Output:
	// 1:48 UNKNOWN_ARG: tool "create_backup" has no parameter "databse": did you mean "database"?
	// <nil>
}
