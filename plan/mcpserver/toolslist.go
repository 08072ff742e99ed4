package mcpserver

import (
	"github.com/planctl/planctl/plan/mcpserver/internal/pywire"
)

// Under ConciergeWire, tools/list is answered with the bytes Concierge's
// server writes: execute_plan with Concierge's own description, its
// title, the input schema, "annotations": {} and "_meta": {}, in the
// order of the Python SDK's Tool model, encoded as pydantic encodes
// JSON. mcp-go writes a tool's members sorted by name and escapes <, >
// and & (the tool list's "->" became "-\u003e"), so the list is rendered
// here once, when the server is made: the catalog does not change.

// conciergeToolsList is the result of Concierge's tools/list for an
// execute_plan described by description.
func conciergeToolsList(description string) []byte {
	out := []byte(`{"tools":[{"name":"` + ToolName + `","title":"Plan Execution","description":`)
	out = pywire.AppendString(out, description)
	out = append(out, `,"inputSchema":`...)
	out = append(out, InputSchema...)
	return append(out, `,"annotations":{},"_meta":{}}]}`...)
}
