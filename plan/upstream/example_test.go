package upstream_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/upstream"
)

// The package comment's use: a plan run against the tools of a real MCP
// server. Here the server is the demo catalog served over Streamable HTTP
// (what planctl mock --http does); Config.Command starts one over stdio
// instead.
func ExampleOpen() {
	ts := httptest.NewServer(server.NewStreamableHTTPServer(mockserver.NewMCPServer(mockserver.Demo(), "example")))
	defer ts.Close()
	ctx := context.Background()

	u, err := upstream.Open(ctx, upstream.Config{URL: ts.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer u.Close()
	p := plan.Load("plan.json", []byte(`[{"id": "b", "tool": "create_backup", "args": {"database": "prod"}}]`), plan.Limits{})
	r := runner.NewRun(p, u.Catalog(), runner.RunOptions{StepTimeout: time.Minute})
	r.Continue(ctx, nil)
	os.Stdout.Write(r.Response())
	// Output: {"status":"completed","steps":{"b":{"status":"ok","result":{"backup_id":"bk-prod","database":"prod","size_bytes":12345678901234567890,"created_at":"2026-12-01T03:00:00Z"}}}}
}
