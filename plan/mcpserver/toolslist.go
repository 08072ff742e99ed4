package mcpserver

import (
	"github.com/planctl/planctl/plan/jsontext"
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
	out = appendPydanticString(out, description)
	out = append(out, `,"inputSchema":`...)
	out = append(out, InputSchema...)
	return append(out, `,"annotations":{},"_meta":{}}]}`...)
}

// appendPydanticString appends s as a JSON string the way pydantic-core
// (serde_json) writes one: the quote, the backslash and the C0 controls
// escaped (\b \t \n \f \r short, the others \u00XX), every other
// character as it is, non-ASCII included. A surrogate that Python's str
// can hold alone (kept as WTF-8, jsontext.SurrogateAt) is written as its
// escape.
func appendPydanticString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		var esc []byte
		n := 1
		switch {
		case c == '"' || c == '\\':
			esc = []byte{'\\', c}
		case c == '\b':
			esc = []byte(`\b`)
		case c == '\t':
			esc = []byte(`\t`)
		case c == '\n':
			esc = []byte(`\n`)
		case c == '\f':
			esc = []byte(`\f`)
		case c == '\r':
			esc = []byte(`\r`)
		case c < 0x20:
			esc = []byte{'\\', 'u', '0', '0', hex[c>>4], hex[c&15]}
		case c == 0xed:
			if r, ok := jsontext.SurrogateAt(s, i); ok {
				esc = []byte{'\\', 'u', hex[r>>12], hex[r>>8&15], hex[r>>4&15], hex[r&15]}
				n = 3
			}
		}
		if esc == nil {
			i++
			continue
		}
		dst = append(append(dst, s[start:i]...), esc...)
		i += n
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
