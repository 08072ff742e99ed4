package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/mockserver"
)

// benchPlan is TestLoad's plan (load_test.go): three steps on the demo
// catalog, two of them reading the first through references.
const benchPlan = `{"steps":[
 {"id":"backup","tool":"create_backup","args":{"database":"prod"}},
 {"id":"validate","tool":"validate_backup","args":{"backup_id":{"output_by_reference":{"backup":["backup_id"]}}}},
 {"id":"stats","tool":"db_stats","args":{"database":{"output_by_reference":{"backup":["database"]}}}}]}`

// BenchmarkHandle is planctl's own CPU per served plan, without mcp-go's
// share (framing, sessions, HTTP): handle, with the log written as text
// (to io.Discard), as serve --log writes it.
//
//	go test ./plan/mcpserver -run '^$' -bench Handle -benchmem
func BenchmarkHandle(b *testing.B) {
	s := New(Options{Catalog: mockserver.Demo(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	var req mcp.CallToolRequest
	req.Params.Name = ToolName
	req.Params.RawArguments = json.RawMessage(benchPlan)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.handle(ctx, req)
		if err != nil || res.IsError || !strings.HasPrefix(res.Content[0].(mcp.TextContent).Text, "{\n  \"status\": \"completed\"") {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
