package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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

// BenchmarkServeHTTP is a served plan through the whole HTTP handler (the
// guard, the turn, the log lines), in process, with and without the
// direct path (direct.go): the CPU a request costs besides net/http's own
// reading and writing.
//
//	go test ./plan/mcpserver -run '^$' -bench ServeHTTP -benchmem
func BenchmarkServeHTTP(b *testing.B) {
	for _, direct := range []bool{true, false} {
		b.Run(map[bool]string{true: "direct", false: "mcp-go"}[direct], func(b *testing.B) {
			s := New(Options{Catalog: mockserver.Demo(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			hs := &http.Server{}
			h := s.NewHTTP(hs, HTTPOptions{Stateless: true, AuthToken: "tok"})
			h.direct = direct
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":` + benchPlan + `}}`
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, Endpoint, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer tok")
				req.Header.Set("MCP-Protocol-Version", "2025-11-25")
				rec := httptest.NewRecorder()
				hs.Handler.ServeHTTP(rec, req)
				if rec.Code != 200 || !strings.Contains(rec.Body.String(), `\"status\": \"completed\"`) {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
