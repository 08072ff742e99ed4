package mcpserver

import (
	"encoding/json"
	"mime"
	"net/http"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/mcpserver/internal/pywire"
	"github.com/planctl/planctl/plan/runner"
)

// The direct path: a stateless HTTP server answers the request it sees
// most, a plain tools/call of execute_plan, without the round trip through
// mcp-go's StreamableHTTPServer and MCPServer. That round trip decodes each
// request's JSON five times with encoding/json (the message, its params, the
// protocol version twice, the arguments into a map planctl never reads) and
// encodes the answer twice more, much of a loaded server's CPU
// (docs/design/serve-latency.md), and mcp-go v1.2.1 has no option that
// skips it.
//
// The direct path writes what the path through mcp-go writes: the same
// status, headers and body (both rendered by pywire, as the Python SDK
// writes them), and the same log lines. It answers only what it can
// answer in planctl's own terms; anything else goes to mcp-go: stateful
// servers, CORS, protocol 2026-07-28 (its checks and result members are
// mcp-go's), a session id, any _meta (a progress token), any key but
// jsonrpc, id, method and params (and name and arguments inside params),
// a key written twice or with escapes, arguments that are not an object.
// The request id is decoded and written again with encoding/json and
// mcp.RequestId, as the path through mcp-go does, so an id like 1.0
// comes back alike on both. TestDirectSameAsMCPGo and
// TestDirectModernToMCPGo send every kind of request through both paths
// and compare every byte and log line; FuzzDirectSameAsMCPGo does it for
// any body.

// directCall is a request the direct path answers.
type directCall struct {
	id   any    // the request id as mcp-go decodes it: a string or a float64
	args []byte // params.arguments, as written
}

// directOf returns the call that r, whose body src parsed to root, makes,
// when the direct path can answer it as the path through mcp-go would;
// nil otherwise.
func (h *HTTP) directOf(r *http.Request, src []byte, root jsontext.Value) *directCall {
	if !h.direct || r.Method != http.MethodPost || root.IsZero() || root.Kind() != jsontext.Object || !h.directHeaders(r) {
		return nil
	}
	return directBody(src, root)
}

// directHeaders reports whether r's headers leave mcp-go nothing to do
// that the direct path does not.
func (h *HTTP) directHeaders(r *http.Request) bool {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false // mcp-go answers 400
	}
	version := r.Header.Get(mcp.HeaderProtocolVersion)
	if version != "" && !mcp.IsValidProtocolVersion(version) {
		return false // refused
	}
	if mcp.IsModernProtocol(version) {
		// Protocol 2026-07-28 carries its own checks and its own result
		// members: mcp-go's to apply.
		return false
	}
	if r.Header.Get(server.HeaderKeySessionID) != "" {
		// A stateless request in a session of the id the client sends:
		// the plan's log lines and trace name it.
		return false
	}
	return len(h.opts.AllowOrigins) == 0 // else mcp-go adds the CORS headers
}

// directBody is the call the message root (parsed from src) makes, when
// it holds jsonrpc, id, method and params once each and nothing else, and
// params holds execute_plan's name and object arguments, once each and
// nothing else; nil otherwise.
func directBody(src []byte, root jsontext.Value) *directCall {
	const (
		hasVersion = 1 << iota
		hasID
		hasMethod
		hasParams
		hasName
		hasArgs
	)
	var c directCall
	seen := 0
	once := func(bit int) bool {
		ok := seen&bit == 0
		seen |= bit
		return ok
	}
	for _, m := range root.Members() {
		v := m.Value
		switch string(src[m.KeyStart:m.KeyEnd]) {
		case `"jsonrpc"`:
			if !once(hasVersion) || string(v.Raw(src)) != `"2.0"` {
				return nil
			}
		case `"id"`:
			if !once(hasID) || (v.Kind() != jsontext.String && v.Kind() != jsontext.Number) || json.Unmarshal(v.Raw(src), &c.id) != nil {
				return nil
			}
		case `"method"`:
			if !once(hasMethod) || string(v.Raw(src)) != `"tools/call"` {
				return nil
			}
		case `"params"`:
			if !once(hasParams) || v.Kind() != jsontext.Object {
				return nil
			}
			for _, p := range v.Members() {
				switch string(src[p.KeyStart:p.KeyEnd]) {
				case `"name"`:
					if !once(hasName) || string(p.Value.Raw(src)) != `"`+ToolName+`"` {
						return nil
					}
				case `"arguments"`:
					if !once(hasArgs) || p.Value.Kind() != jsontext.Object {
						return nil
					}
					c.args = p.Value.Raw(src)
				case `"_meta"`:
					return nil // a progress token, or a protocol version of the body's own
				default:
					return nil // task, or anything mcp-go may read
				}
			}
		default:
			return nil
		}
	}
	if seen != hasVersion|hasID|hasMethod|hasParams|hasName|hasArgs || c.id == nil {
		return nil
	}
	return &c
}

// serveDirect answers c as the path through mcp-go does: the tool's
// handler behind the same recovery, the same "request" log line, and the
// JSON-RPC response pywire writes, after the turn is given up.
func (h *HTTP) serveDirect(w http.ResponseWriter, r *http.Request, c *directCall, u *turn) {
	h.directServed.Add(1)
	var req mcp.CallToolRequest
	req.Method = string(mcp.MethodToolsCall)
	req.Header = r.Header
	req.Params.Name = ToolName
	req.Params.RawArguments = c.args
	res := h.srv.callTool(r.Context(), req)
	h.srv.logRequest(mcp.MethodToolsCall, c.id, nil)
	out := appendResponse(nil, c.id, res)
	if r.Context().Err() != nil {
		return // the client left: mcp-go writes nothing either
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	u.release()
	w.Write(out)
}

// encodeLine is v, a message for encoding/json, as the Python SDK writes
// it.
func encodeLine(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return nil // mcp-go writes nothing past the status either
	}
	return pywire.Message(nil, append(b, '\n'))
}

// appendResponse appends the JSON-RPC response of a tools/call that res
// answers: written by pywire from the result's text and structuredContent
// for the answers execute_plan gives (one text block, perhaps
// structuredContent), the encoding a served plan mostly pays for; through
// encodeLine for anything else.
func appendResponse(dst []byte, id any, res *mcp.CallToolResult) []byte {
	general := func() []byte {
		return append(dst, encodeLine(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), res))...)
	}
	text, ok := plainText(res)
	var sc json.RawMessage
	if ok && res.StructuredContent != nil {
		sc, ok = res.StructuredContent.(json.RawMessage)
		if ok && sc == nil {
			sc = json.RawMessage("null")
		}
	}
	rid, err := json.Marshal(mcp.NewRequestId(id))
	if !ok || err != nil {
		return general()
	}
	size := len(text) + len(text)/8 + len(sc)
	if len(text)+len(sc) > 64<<10 {
		// Escapes can make the answer several times the response: a large
		// one is counted first, so that its buffer is made once, not grown
		// by doubling to twice the answer.
		size = int(runner.AnswerSize(sc))
	}
	dst = slices.Grow(dst, size+len(rid)+100)
	return pywire.ToolResponse(dst, rid, text, sc, res.IsError)
}

// plainText is the text of a result that is one plain text block and
// perhaps structuredContent, nothing else.
func plainText(res *mcp.CallToolResult) (string, bool) {
	if res == nil || res.Meta != nil || res.ResultType != "" || len(res.Content) != 1 ||
		len(res.RawStructuredContent) > 0 || len(res.InputRequests) > 0 || res.RequestState != "" {
		return "", false
	}
	tc, ok := res.Content[0].(mcp.TextContent)
	if !ok || tc.Annotations != nil || tc.Meta != nil || tc.Type != mcp.ContentTypeText {
		return "", false
	}
	return tc.Text, true
}
