package mockserver

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// NewMCPServer serves a catalog as an ordinary MCP server (planctl mock):
// every tool is listed with its input schema, output schema and annotations
// as the catalog has them, and each call is answered by the catalog.
// Sharable parameters are published as "x-sharable": true marks in the input
// schema (the only way an MCP tool can carry them), so that planctl reading
// this server back gets the same sharable parameters. A result goes out as
// JSON text and, when it is an object, as structuredContent too; a failing
// tool as an isError result; a delay ends early when the client cancels.
func NewMCPServer(cat *plan.Catalog, version string) *server.MCPServer {
	s := server.NewMCPServer("planctl-mock", version,
		server.WithToolCapabilities(false), server.WithRecovery())
	for _, t := range cat.Tools {
		tool := mcp.NewToolWithRawSchema(t.Name, t.Description, markSharable(t))
		if len(t.OutputSchema) > 0 {
			tool.RawOutputSchema = t.OutputSchema
		}
		if len(t.Annotations) > 0 {
			_ = json.Unmarshal(t.Annotations, &tool.Annotations)
		}
		name := t.Name
		s.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := req.GetRawArguments()
			raw, ok := args.(json.RawMessage)
			if !ok || len(raw) == 0 {
				b, err := json.Marshal(args)
				if err != nil || string(b) == "null" {
					b = []byte("{}")
				}
				raw = b
			}
			if string(raw) == "null" {
				raw = json.RawMessage("{}")
			}
			res, err := cat.Call(ctx, name, raw)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return mcp.NewToolResultError(err.Error()), nil
			}
			return ToolResult(res), nil
		})
	}
	return s
}

// ToolResult turns a catalog's tool result into an MCP result: JSON text
// always, structuredContent when the value is an object (MCP allows
// nothing else there), isError with the text for a failure.
func ToolResult(res plan.ToolResult) *mcp.CallToolResult {
	if res.IsError {
		return mcp.NewToolResultError(res.Error)
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(res.Value))}}
	if v, err := jsontext.Parse(res.Value); err == nil && v.Kind() == jsontext.Object {
		out.RawStructuredContent = res.Value
	}
	return out
}

// markSharable returns the tool's input schema with "x-sharable": true added
// to each sharable property that lacks it, every other byte unchanged.
func markSharable(t *plan.Tool) json.RawMessage {
	src := t.InputSchema
	if len(src) == 0 {
		return json.RawMessage(`{"type":"object"}`)
	}
	root, err := jsontext.Parse(src)
	if err != nil || root.Kind() != jsontext.Object {
		return src
	}
	props := root.Get("properties")
	if props.IsZero() || props.Kind() != jsontext.Object {
		return src
	}
	var at []int // offsets just after the '{' of each property to mark
	for _, m := range props.Members() {
		if !t.IsSharable(m.Key) || t.SharableAll || m.Value.Kind() != jsontext.Object || !m.Value.Get("x-sharable").IsZero() {
			continue
		}
		at = append(at, m.Value.Start()+1)
	}
	if len(at) == 0 {
		return src
	}
	sort.Ints(at)
	out := make([]byte, 0, len(src)+len(at)*18)
	last := 0
	for _, off := range at {
		out = append(out, src[last:off]...)
		out = append(out, `"x-sharable":true`...)
		if rest := jsontext.SkipSpace(src, off); rest < len(src) && src[rest] != '}' {
			out = append(out, ',')
		}
		last = off
	}
	return append(out, src[last:]...)
}
