// Command planserver is a small Concierge-style Plan server for planctl's
// tests and overhead measurement: over stdio it lists one tool,
// execute_plan, described the way Concierge describes it (prose, then
// "AVAILABLE TOOLS:" and concierge.RenderConcierge), and runs each plan with
// runner.Run against the embedded demo catalog, or against an upstream MCP
// server given with -server 'CMD ARG...'.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/upstream"
)

const prose = `Execute a plan of one or more tool calls on this server.

INPUT: A JSON object with a "steps" array. Each step has an id, a tool and args.
A parameter marked [sharable] may take {"output_by_reference": {"step_id": [path...]}}.

AVAILABLE TOOLS:

`

func main() {
	srv := flag.String("server", "", "an upstream MCP server command")
	flag.Parse()
	cat := mockserver.Demo()
	if *srv != "" {
		argv, err := upstream.SplitCommand(*srv)
		if err != nil {
			fail(err)
		}
		u, err := upstream.Open(context.Background(), upstream.Config{Command: argv})
		if err != nil {
			fail(err)
		}
		defer u.Close()
		cat = u.Catalog()
	}
	s := server.NewMCPServer("planserver", "1", server.WithToolCapabilities(false), server.WithRecovery())
	schema := `{"type":"object","properties":{"steps":{"type":"array","minItems":1,"items":{"type":"object","required":["id","tool","args"],"properties":{"id":{"type":"string"},"tool":{"type":"string"},"args":{"type":"object","additionalProperties":true}},"additionalProperties":false}}},"required":["steps"]}`
	tool := mcp.NewToolWithRawSchema("execute_plan", prose+concierge.RenderConcierge(cat.Tools), json.RawMessage(schema))
	s.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw, _ := req.GetRawArguments().(json.RawMessage)
		p := plan.Load("execute_plan", raw, plan.Limits{})
		var resp []byte
		rejected := false
		if rej := concierge.ConciergeCheck(p, cat); rej != nil {
			resp, rejected = runner.ErrorResponse(rej.Message), true
		} else {
			r := runner.NewRun(p, cat, runner.RunOptions{})
			r.Continue(ctx, nil)
			resp = r.Response()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(resp))}, RawStructuredContent: resp, IsError: rejected}, nil
	})
	if err := server.ServeStdio(s); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "planserver:", err)
	os.Exit(1)
}
