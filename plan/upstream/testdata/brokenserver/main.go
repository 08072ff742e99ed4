// Command brokenserver is an MCP server that misbehaves on request, for
// planctl's fault tests: its tools crash the process mid-call, write
// non-JSON on stdout, close stdout, never answer, or answer 50 MB, invalid
// UTF-8 or plain text. With -mute it never answers at all;
// with -page N it pages tools/list N tools at a time; with -xsharable its
// "ok" tool marks its parameter x-sharable; with -pidfile F it appends its
// pid to F, so tests can check that no server outlives planctl.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	mute := flag.Bool("mute", false, "read stdin but never answer")
	exitNow := flag.Int("exit", -1, "exit at once with this status")
	page := flag.Int("page", 0, "tools/list page size (0: one page)")
	xsharable := flag.Bool("xsharable", false, "mark ok's parameter x-sharable")
	tools := flag.Int("tools", 0, "extra tools t0..tN-1, to page through")
	pidfile := flag.String("pidfile", "", "append this process's pid to `FILE`")
	flag.Parse()
	if *pidfile != "" {
		f, err := os.OpenFile(*pidfile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
	}
	if *exitNow >= 0 {
		fmt.Fprintln(os.Stderr, "brokenserver: refusing to start")
		os.Exit(*exitNow)
	}
	if *mute {
		io.Copy(io.Discard, os.Stdin)
		return
	}
	var opts []server.ServerOption
	if *page > 0 {
		opts = append(opts, server.WithPaginationLimit(*page))
	}
	s := server.NewMCPServer("brokenserver", "1", append(opts, server.WithToolCapabilities(false))...)
	schema := `{"type":"object","properties":{"value":{"type":"string"},"n":{"type":"integer"}}}`
	if *xsharable {
		schema = `{"type":"object","properties":{"value":{"type":"string","x-sharable":true},"n":{"type":"integer"}}}`
	}
	ok := mcp.NewToolWithRawSchema("ok", "Answer {\"value\": value}.", json.RawMessage(schema))
	ok.RawOutputSchema = json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}`)
	s.AddTool(ok, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b, _ := json.Marshal(map[string]any{"value": req.GetString("value", "")})
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}, RawStructuredContent: b}, nil
	})
	add := func(name, desc string, h server.ToolHandlerFunc) {
		s.AddTool(mcp.NewToolWithRawSchema(name, desc, json.RawMessage(`{"type":"object"}`)), h)
	}
	add("crash", "Exit with status 3 in the middle of the call.", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "boom: simulated crash")
		os.Exit(3)
		return nil, nil
	})
	add("garbage", "Write a line that is not JSON on stdout, then answer.", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		os.Stdout.WriteString("Traceback (most recent call last): not JSON\n")
		time.Sleep(100 * time.Millisecond)
		return mcp.NewToolResultText("late"), nil
	})
	add("hang", "Never answer, ignoring cancellation.", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {}
	})
	add("slow", "Answer after 10 minutes unless cancelled.", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "slow: called")
		select {
		case <-time.After(10 * time.Minute):
			return mcp.NewToolResultText("slow"), nil
		case <-ctx.Done():
			fmt.Fprintln(os.Stderr, "slow: cancelled")
			return nil, ctx.Err()
		}
	})
	add("fails", "Fail as a tool: isError.", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("the disk is full"), nil
	})
	add("text", "Answer plain text.", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hello, plan"), nil
	})
	add("blocks", "Answer two content blocks.", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("a"), mcp.NewTextContent("b")}}, nil
	})
	add("closeout", "Close stdout in the middle of the call, then stay alive.", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "closeout: closing stdout")
		os.Stdout.Close()
		select {}
	})
	add("big", "Answer 50 MB of text.", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("x", 50<<20)), nil
	})
	add("badutf8", "Answer structuredContent holding bytes that are not UTF-8.", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw := json.RawMessage("{\"name\":\"caf\xe9 \xff\xfe\"}")
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("see structuredContent")}, RawStructuredContent: raw}, nil
	})
	for i := 0; i < *tools; i++ {
		add(fmt.Sprintf("t%d", i), "A filler tool.", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("{}"), nil
		})
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
