package upstreamtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// The overhead of a plan: one execute_plan call carrying 20 chained steps,
// sent to a Plan-style server that itself calls `planctl mock` over stdio
// (the shape of `planctl serve --server 'planctl mock'`), against the same
// client making the 20 tools/call round trips to `planctl mock` itself.
// Both over stdio with mcp-go's client. Run with
//
//	go test ./cmd/planctl/upstreamtest -run '^$' -bench Overhead -benchtime 200x
const steps = 20

func stdioClient(b *testing.B, command string, args ...string) *client.Client {
	b.Helper()
	c := client.NewClient(transport.NewStdioWithOptions(command, nil, args, transport.WithCommandFunc(clitest.StdioCommand)))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

func callTool(b *testing.B, c *client.Client, name string, args any) *mcp.CallToolResult {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %+v", name, err, res)
	}
	return res
}

// BenchmarkOverheadDirect20: 20 tools/call echo, each passing on the value
// the previous one returned, as a client without plans must.
func BenchmarkOverheadDirect20(b *testing.B) {
	c := stdioClient(b, binary, "mock")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var value any = "start"
		for s := 0; s < steps; s++ {
			res := callTool(b, c, "echo", map[string]any{"value": value})
			var out struct{ Value any }
			raw, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(raw, &out); err != nil {
				b.Fatal(err)
			}
			value = out.Value
		}
	}
}

// chain is a plan of n echo steps, each reading the previous one's value.
func chain(n int) json.RawMessage {
	var sb strings.Builder
	sb.WriteString(`{"steps":[{"id":"s0","tool":"echo","args":{"value":"start"}}`)
	for s := 1; s < n; s++ {
		fmt.Fprintf(&sb, `,{"id":"s%d","tool":"echo","args":{"value":{"output_by_reference":{"s%d":["value"]}}}}`, s, s-1)
	}
	sb.WriteString(`]}`)
	return json.RawMessage(sb.String())
}

// BenchmarkOverheadPlan20: one execute_plan of 20 chained steps through a
// Plan-style server whose tools are `planctl mock` over stdio.
func BenchmarkOverheadPlan20(b *testing.B) {
	c := stdioClient(b, planServer, "-server", quote(binary)+" mock")
	plan := chain(steps)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := callTool(b, c, "execute_plan", plan)
		text := res.Content[0].(mcp.TextContent).Text
		if !strings.HasPrefix(text, `{"status":"completed"`) {
			b.Fatal(text)
		}
	}
}

// BenchmarkOverheadPlan20InProcess: the same plan against a Plan-style
// server whose tools are in its own process (no upstream hop).
func BenchmarkOverheadPlan20InProcess(b *testing.B) {
	c := stdioClient(b, planServer)
	plan := chain(steps)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		callTool(b, c, "execute_plan", plan)
	}
}

// BenchmarkOverheadServe20: the same plan through `planctl serve --server
// 'planctl mock'` itself, once this build has the serve command.
func BenchmarkOverheadServe20(b *testing.B) {
	if err := clitest.Command(binary, "serve", "--help").Run(); err != nil {
		b.Skip("this build has no `planctl serve`")
	}
	c := stdioClient(b, binary, "serve", "--server", quote(binary)+" mock")
	plan := chain(steps)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := callTool(b, c, "execute_plan", plan)
		text := res.Content[0].(mcp.TextContent).Text
		if !strings.Contains(text, `"completed"`) {
			b.Fatal(text)
		}
	}
}
