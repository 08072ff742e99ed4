package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// Concierge's MCP wire, where it differs from what mcp-go does on
// its own. Concierge is a Python MCP server: its SDK parses a request with
// Python's json, so a number beyond a double or a NaN/Infinity literal is a
// value (null, by the time the backend sees it), not a refused request;
// it answers an unknown tool name with an isError result, and arguments
// that are an array (or any other non-object) with JSON-RPC -32602. mcp-go refuses the first with
// -32600/-32700 and the second with -32602, and would take an array as
// arguments, so the transports offer each request line to wireIn before
// mcp-go reads it.

// wireIn looks at one JSON-RPC message before mcp-go does. It returns the
// message to pass on (line itself, or with every number beyond a double
// and NaN/Infinity replaced by null), or a reply to send instead of
// passing anything on.
func (s *Server) wireIn(line []byte) (pass, reply []byte) {
	pass, reply, _, _ = s.wireParse(line)
	return pass, reply
}

// wireParse is wireIn that also returns, for a tools/call passed on as it
// came, its parse and the text (line without its surrounding space) the
// parse's offsets are in; otherwise a zero root.
func (s *Server) wireParse(line []byte) (pass, reply []byte, root jsontext.Value, src []byte) {
	if !bytes.Contains(line, []byte(`tools/call`)) {
		return line, nil, root, nil // only a tool call carries a plan
	}
	src = bytes.TrimSpace(line)
	root, err := jsontext.Parse(src)
	if err != nil || root.Kind() != jsontext.Object {
		return line, nil, jsontext.Value{}, nil // mcp-go answers what does not parse
	}
	if m := root.Get("method"); m.IsZero() || m.Kind() != jsontext.String || m.Str() != "tools/call" {
		return line, nil, jsontext.Value{}, nil
	}
	id := root.Get("id")
	if params := root.Get("params"); !id.IsZero() && !params.IsZero() && params.Kind() == jsontext.Object {
		rawID := id.Raw(src)
		if name := params.Get("name"); !name.IsZero() && name.Kind() == jsontext.String && name.Str() != ToolName {
			return nil, wireResult(rawID, unknownToolResult(name.Str())), jsontext.Value{}, nil
		}
		// The SDK validates arguments as dict[str, Any] | None: an array,
		// a string, a number or a bool is invalid params.
		if args := params.Get("arguments"); !args.IsZero() && args.Kind() != jsontext.Object && args.Kind() != jsontext.Null {
			return nil, wireError(rawID, mcp.INVALID_PARAMS, "Invalid request parameters"), jsontext.Value{}, nil
		}
	}
	pass = nullNonFinite(src, root, line)
	if &pass[0] != &line[0] {
		return pass, nil, jsontext.Value{}, nil // rewritten: the parse is not of it
	}
	return pass, nil, root, src
}

// nullNonFinite returns src with every value that was written as a number
// beyond a double or as NaN/Infinity replaced by null, as Concierge's stack
// receives it; orig when there is none.
func nullNonFinite(src []byte, root jsontext.Value, orig []byte) []byte {
	var spans [][2]int
	var walk func(v jsontext.Value)
	walk = func(v jsontext.Value) {
		switch {
		case jsontext.IsNonFinite(v):
			spans = append(spans, [2]int{v.Start(), v.End()})
		case v.Kind() == jsontext.Array:
			for _, e := range v.Elems() {
				walk(e)
			}
		case v.Kind() == jsontext.Object:
			for _, m := range v.Members() {
				walk(m.Value)
			}
		}
	}
	walk(root)
	if len(spans) == 0 {
		return orig
	}
	out := make([]byte, 0, len(src))
	at := 0
	for _, sp := range spans {
		out = append(out, src[at:sp[0]]...)
		out = append(out, "null"...)
		at = sp[1]
	}
	out = append(out, src[at:]...)
	return append(out, '\n')
}

// unknownToolResult is Concierge's answer to a call of a tool it does not
// list: an isError result, not a protocol error.
func unknownToolResult(name string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("Unknown tool: " + name)}, IsError: true}
}

func wireResult(id []byte, res *mcp.CallToolResult) []byte {
	body, _ := json.Marshal(res)
	return wireLine(id, "result", body)
}

func wireError(id []byte, code int, msg string) []byte {
	body, _ := json.Marshal(map[string]any{"code": code, "message": msg})
	return wireLine(id, "error", body)
}

func wireLine(id []byte, key string, body []byte) []byte {
	out := []byte(`{"jsonrpc":"2.0","id":`)
	out = append(out, id...)
	out = append(out, `,"`+key+`":`...)
	out = append(out, body...)
	return append(out, "}\n"...)
}

// wireOut makes isError explicit in a tools/call result, as Concierge's
// server writes it ("isError": false): mcp-go leaves a false isError out.
// Any other message passes unchanged. A tools/call result is the only
// result with a top-level "content" array. It walks the top-level members
// of the message and of its result only, parsing nothing into a tree:
// every answer goes through here, and a parse of each weighed on a loaded
// server's allocations.
func wireOut(line []byte) []byte {
	at, insert := wireOutAt(line)
	if insert == "" {
		return line
	}
	out := make([]byte, 0, len(line)+len(insert))
	out = append(out, line[:at]...)
	out = append(out, insert...)
	return append(out, line[at:]...)
}

// wireOutAt is where wireOut inserts into line, and what; "" when it
// leaves line as it is. Writers insert it as they write (wireOutWriter):
// an answer as large as --max-response is not copied to move its tail.
func wireOutAt(line []byte) (at int, insert string) {
	if !bytes.Contains(line, []byte(`"result":{`)) || !bytes.Contains(line, []byte(`"content":[`)) || bytes.Contains(line, []byte(`"isError":`)) {
		return 0, ""
	}
	rs, re, ok := topMember(line, "result")
	if !ok || line[rs] != '{' {
		return 0, ""
	}
	res := line[rs:re]
	if _, _, ok := topMember(res, "content"); !ok {
		return 0, ""
	}
	if i := jsontext.SkipSpace(res, 1); i < len(res) && res[i] != '}' {
		return rs + 1, `"isError":false,` // just inside the result's "{"
	}
	return rs + 1, `"isError":false`
}

// topMember finds key among the top-level members of the JSON object b and
// returns the span of its value (the last, when it repeats). b is what mcp-go's encoder wrote, whose
// keys carry no escapes; anything else (not an object, cut short) is
// reported as not found, never read past its end.
func topMember(b []byte, key string) (start, end int, ok bool) {
	i := jsontext.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, 0, false
	}
	i = jsontext.SkipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		ks := i
		i = jsontext.SkipString(b, i)
		if i > len(b) {
			return 0, 0, false
		}
		k := b[ks:i]
		i = jsontext.SkipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return 0, 0, false
		}
		i = jsontext.SkipSpace(b, i+1)
		e := jsontext.SkipValue(b, i)
		if i >= len(b) || e <= i || e > len(b) {
			return 0, 0, false
		}
		if len(k) == len(key)+2 && k[len(k)-1] == '"' && string(k[1:len(k)-1]) == key {
			start, end, ok = i, e, true // the last one counts, as for json.loads
		}
		i = jsontext.SkipSpace(b, e)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i = jsontext.SkipSpace(b, i+1)
	}
	return start, end, ok
}

// The answers of execute_plan. Concierge writes its response as the text
// json.dumps(response, indent=2) (every non-ASCII character escaped) and as
// structuredContent; it raises (a TypeError, a malformed reference) with an
// isError result whose text is the bare message.

// answer is a run's response as Concierge's text and structuredContent.
func answer(resp []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(pyvalue.DumpsIndentString(resp))},
		StructuredContent: json.RawMessage(resp),
	}
}

// rejected is a refused plan: {"error": ...}, which planctl marks isError
// and Concierge (ConciergeWire) does not.
func (s *Server) rejected(resp []byte) *mcp.CallToolResult {
	r := answer(resp)
	r.IsError = !s.opts.ConciergeWire
	return r
}

// raised is what Concierge answers when its execute_plan raises: the bare
// message, isError, no structuredContent.
func raised(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(msg)}, IsError: true}
}

// wireOutWriter applies wireOut to every message mcp-go writes over HTTP:
// a JSON body, or one server-sent event, per Write. Before it writes, the
// request gives its turn up (turns.go): a client that reads slowly holds
// up nobody else.
type wireOutWriter struct {
	http.ResponseWriter
	turn *turn
}

func (w wireOutWriter) Write(p []byte) (int, error) {
	w.turn.release()
	at, insert := wireOutHTTPAt(p)
	if insert == "" {
		if _, err := w.ResponseWriter.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	_, err := w.ResponseWriter.Write(p[:at])
	if err == nil {
		_, err = io.WriteString(w.ResponseWriter, insert)
	}
	if err == nil {
		_, err = w.ResponseWriter.Write(p[at:])
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush passes on to the connection, for server-sent events.
func (w wireOutWriter) Flush() {
	w.turn.release()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the connection's writer.
func (w wireOutWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sseData is how mcp-go writes one event.
var sseData = []byte("event: message\ndata: ")

// wireOutHTTPAt is wireOutAt of what mcp-go writes over HTTP: a JSON body,
// or one event whose first data line is the message.
func wireOutHTTPAt(p []byte) (at int, insert string) {
	if bytes.HasPrefix(p, sseData) {
		body := p[len(sseData):]
		end := bytes.IndexByte(body, '\n')
		if end < 0 {
			return 0, ""
		}
		at, insert = wireOutAt(body[:end])
		return len(sseData) + at, insert
	}
	if len(p) > 0 && p[0] == '{' {
		return wireOutAt(p)
	}
	return 0, ""
}
