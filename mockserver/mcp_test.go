package mockserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/plan"
)

func TestMarkSharable(t *testing.T) {
	for _, c := range []struct {
		schema   string
		sharable []string
		want     string
	}{
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{}}}`, []string{"a", "b"},
			`{"type":"object","properties":{"a":{"x-sharable":true,"type":"string"},"b":{"x-sharable":true}}}`},
		{`{"type":"object","properties":{"a":{ "type":"string"},"b":{"x-sharable":true}}}`, []string{"b"},
			`{"type":"object","properties":{"a":{ "type":"string"},"b":{"x-sharable":true}}}`},
		{`{"type":"object","properties":{"a":{  }}}`, []string{"a"},
			`{"type":"object","properties":{"a":{"x-sharable":true  }}}`},
		{`{"type":"object"}`, []string{"a"}, `{"type":"object"}`},
	} {
		sh := map[string]bool{}
		for _, p := range c.sharable {
			sh[p] = true
		}
		got := markSharable(&plan.Tool{InputSchema: json.RawMessage(c.schema), Sharable: sh})
		if string(got) != c.want || !json.Valid(got) {
			t.Errorf("%s:\n got %s\nwant %s", c.schema, got, c.want)
		}
	}
}

// Every demo tool is listed with its schemas and annotations, and answers
// as the catalog does: objects as structuredContent plus JSON text, other
// values as JSON text, errors as isError.
func TestMCPServerInProcess(t *testing.T) {
	demo := Demo()
	c, err := client.NewInProcessClient(NewMCPServer(demo, "test"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != len(demo.Tools) {
		t.Fatalf("%d tools listed, the catalog has %d", len(list.Tools), len(demo.Tools))
	}
	for _, lt := range list.Tools {
		want := demo.Tool(lt.Name)
		if want == nil || lt.Description != want.Description {
			t.Errorf("%s: not the catalog's tool", lt.Name)
			continue
		}
		ro := lt.Annotations.ReadOnlyHint != nil && *lt.Annotations.ReadOnlyHint
		if ro != want.ReadOnly() {
			t.Errorf("%s: readOnlyHint %v, want %v", lt.Name, ro, want.ReadOnly())
		}
	}
	for _, cc := range []struct {
		tool, args, text  string
		structured, isErr bool
	}{
		{"validate_backup", `{"backup_id":"bk-1"}`, `{"status":"valid","backup_id":"bk-1","checksum":"sha256:9f2c4e"}`, true, false},
		{"validate_backup", `{"backup_id":"bk-missing"}`, `backup 'bk-missing' not found`, false, true},
	} {
		req := mcp.CallToolRequest{}
		req.Params.Name = cc.tool
		req.Params.Arguments = json.RawMessage(cc.args)
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(mcp.TextContent).Text
		if text != cc.text || res.IsError != cc.isErr || (res.StructuredContent != nil) != cc.structured {
			t.Errorf("%s %s: %q isError=%v structured=%v", cc.tool, cc.args, text, res.IsError, res.StructuredContent)
		}
	}
}
