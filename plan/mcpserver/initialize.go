package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/plan/mcpserver/internal/pywire"
)

// conciergeInstructions are the instructions a Concierge server gives in
// its initialize answer: Concierge sets them on the FastMCP server it wraps
// (DEFAULT_WORKFLOW_INSTRUCTIONS, concierge/__init__.py at 141e69e), when
// the server's author gave none of their own.
const conciergeInstructions = "You are interacting with workflow which is self discoverable. This server unlocks new tools as you progress through the workflow.\n" +
	"You must ensure to call the relevant tools wherever applicable. Do not terminate early, the workflow will indicate when no more stages or tools are available. Do not assume you are done, unless the tools/workflow indicates this.\n" +
	"You are an autonomous agent performing long running tasks on the workflow. Only interrupt to ask the user if a tool requires SPECIFIC input that you dont have or need more clarity about. DO NOT ASSUME ANY DETAIL, pause and ask use when unsure.\n" +
	"Trust the workflow, the workflow is self-describing. Each stage transition reveals new capabilities. Your goal is to reach the terminal stage by executing tools and navigating stages."

// sdkProtocolVersions are the protocol versions the MCP Python SDK (1.29)
// answers initialize with as the client asked; any other gets
// sdkLatestProtocol (SUPPORTED_PROTOCOL_VERSIONS, mcp/shared/version.py).
var sdkProtocolVersions = map[string]bool{"2024-11-05": true, "2025-03-26": true, "2025-06-18": true, sdkLatestProtocol: true}

const sdkLatestProtocol = "2025-11-25"

// conciergeCapabilities are a Concierge server's capabilities as its SDK
// writes them: FastMCP registers list handlers for prompts, resources and
// tools, so all three are there, with no change notifications.
const conciergeCapabilities = `{"experimental":{},"prompts":{"listChanged":false},"resources":{"subscribe":false,"listChanged":false},"tools":{"listChanged":false}}`

// conciergeInit is, under ConciergeWire, the answer a Concierge server
// gives the initialize request line, but for serverInfo, which is
// planctl's (docs/concierge.md says why); nil for any other line. mcp-go
// still serves the request, since it keeps the session's state: the
// transports write this answer in place of its own when it succeeded.
func (s *Server) conciergeInit(line []byte) []byte {
	if !s.opts.ConciergeWire {
		return nil
	}
	ms, me, ok := topMember(line, "method")
	if !ok || string(line[ms:me]) != `"initialize"` {
		return nil
	}
	is, ie, ok := topMember(line, "id")
	if !ok || string(line[is:ie]) == "null" {
		return nil
	}
	ps, pe, ok := topMember(line, "params")
	if !ok || line[ps] != '{' || modernMeta(line[ps:pe]) {
		return nil // refused (wireEdge), or of an era the SDK does not know
	}
	params := line[ps:pe]
	version := sdkLatestProtocol
	if vs, ve, ok := topMember(params, "protocolVersion"); ok && params[vs] == '"' {
		var v string
		if json.Unmarshal(params[vs:ve], &v) == nil && sdkProtocolVersions[v] {
			version = v
		}
	}
	res := append(make([]byte, 0, 1024), `{"protocolVersion":`...)
	res = pywire.AppendString(res, version)
	res = append(res, `,"capabilities":`...)
	res = append(res, conciergeCapabilities...)
	res = append(res, `,"serverInfo":{"name":`...)
	res = pywire.AppendString(res, serverName)
	res = append(res, `,"version":`...)
	res = pywire.AppendString(res, s.opts.Version)
	res = append(res, `},"instructions":`...)
	res = pywire.AppendString(res, conciergeInstructions)
	res = append(res, '}')
	return pywire.Response(nil, line[is:ie], res)
}

// initSucceeded reports whether mcp-go's answer msg is a result, not an
// error.
func initSucceeded(msg mcp.JSONRPCMessage) bool {
	switch msg.(type) {
	case mcp.JSONRPCResponse, *mcp.JSONRPCResponse:
		return true
	}
	return false
}

// initWriter holds mcp-go's HTTP answer to an initialize and, when it is
// a JSON result, writes a Concierge server's answer (conciergeInit) in
// its place; any other answer (an error, a refusal) is written as it
// came. The headers mcp-go set (the session id among them) stay.
type initWriter struct {
	http.ResponseWriter
	answer []byte
	status int
	body   bytes.Buffer
}

func (w *initWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *initWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}

// Flush holds the answer back: it is written whole by done.
func (w *initWriter) Flush() {}

// done writes the answer.
func (w *initWriter) done() {
	if w.status == 0 {
		return
	}
	body := w.body.Bytes()
	if _, _, isResult := topMember(body, "result"); w.status == http.StatusOK && isResult &&
		bytes.HasPrefix([]byte(w.Header().Get("Content-Type")), []byte("application/json")) {
		body = w.answer
		w.Header().Del("Content-Length")
	}
	w.ResponseWriter.WriteHeader(w.status)
	w.ResponseWriter.Write(body)
}
