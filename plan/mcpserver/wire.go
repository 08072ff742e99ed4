package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/mcpserver/internal/pywire"
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
	line, id := s.idIn(line)
	if pass, reply = s.wireEdge(line, id); reply != nil || pass != nil {
		return pass, reply
	}
	pass, reply, _, _ = s.wireParse(line, id)
	return pass, reply
}

// conciergeMethods are the requests the MCP Python SDK's server knows;
// it answers any other with -32602 (its request model refuses it).
var conciergeMethods = map[string]bool{"initialize": true, "ping": true, "tools/list": true, "tools/call": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true, "resources/subscribe": true,
	"resources/unsubscribe": true, "prompts/list": true, "prompts/get": true, "logging/setLevel": true, "completion/complete": true}

// conciergeInvalid is the MCP Python SDK's answer to request id when its
// models refuse the request.
func conciergeInvalid(id []byte) []byte {
	empty := ""
	return pywire.Error(nil, id, mcp.INVALID_PARAMS, "Invalid request parameters", &empty)
}

// emptyLists are Concierge's answers to the listings it has nothing for.
var emptyLists = map[string]string{"resources/list": `{"resources":[]}`, "resources/templates/list": `{"resourceTemplates":[]}`, "prompts/list": `{"prompts":[]}`}

// wireEdge answers, over stdio, the protocol edges where Concierge's
// server answers otherwise than mcp-go (docs/concierge.md lists them):
// under ConciergeWire as Concierge does; in the default mode only a
// tools/call without a name, which mcp-go answered "tool ” not found".
// It returns a reply, or a line to pass on instead of line, or neither.
// line is as idIn returned it, and id the request's id as idIn returned
// it (nil: the one in line).
func (s *Server) wireEdge(line, id []byte) (pass, reply []byte) { return s.edge(line, id, false) }

// httpEdge is wireEdge for a request that came over HTTP, past the
// session checks. The Python SDK refuses requests before initialize only
// within a session that has not been initialized: over Streamable HTTP a
// stateless server's session starts initialized, and a stateful one is
// made by initialize itself (a request without its session id is refused
// before any session sees it, as planctl's guard does). So over HTTP every
// request is past initialize, and only the method checks apply.
func (s *Server) httpEdge(body, id []byte) (pass, reply []byte) { return s.edge(body, id, true) }

func (s *Server) edge(line, id []byte, overHTTP bool) (pass, reply []byte) {
	ms, me, ok := topMember(line, "method")
	if !ok || line[ms] != '"' {
		return nil, nil // a response, or not JSON-RPC: mcp-go's answer stands
	}
	var method string
	if json.Unmarshal(line[ms:me], &method) != nil {
		return nil, nil
	}
	initialized := overHTTP || s.initSeen.Load()
	if !s.opts.ConciergeWire || method == "tools/call" && initialized {
		return nil, nil // wireParse looks at a tools/call: it parses it anyway
	}
	is, ie, hasID := topMember(line, "id")
	if !hasID || string(line[is:ie]) == "null" {
		return nil, nil // a notification gets no answer
	}
	if !validID(line[is:ie]) {
		return nil, nil // not JSON: answered as a parse error, with no id to echo
	}
	if id == nil {
		id = line[is:ie]
	}
	params := []byte("null")
	if ps, pe, ok := topMember(line, "params"); ok {
		params = line[ps:pe]
	}
	if modernMeta(params) {
		// Protocol 2026-07-28 is newer than Concierge's SDK: there is no
		// answer of its to reproduce, and mcp-go's is that era's.
		return nil, nil
	}
	invalid := func() []byte { return conciergeInvalid(id) }
	switch {
	case !conciergeMethods[method]:
		return nil, invalid()
	case method == "initialize":
		if params[0] != '{' {
			return nil, invalid()
		}
		if !overHTTP {
			s.initSeen.Store(true)
		}
		// A protocolVersion that is not a string: the SDK answers with its
		// latest version, where mcp-go refused the request.
		if vs, ve, ok := topMember(params, "protocolVersion"); ok && params[vs] != '"' {
			ps := bytes.Index(line, params)
			out := make([]byte, 0, len(line)+16)
			out = append(out, line[:ps+vs]...)
			out = append(out, `"2025-11-25"`...)
			out = append(out, line[ps+ve:]...)
			return out, nil
		}
		return nil, nil
	case method != "ping" && !initialized:
		return nil, invalid() // before initialize
	case emptyLists[method] != "":
		return nil, pywire.Response(nil, id, []byte(emptyLists[method]))
	case method == "tools/list" && s.toolsList != nil && (params[0] == '{' || string(params) == "null"):
		// The SDK's params model: a cursor is a string or null.
		if cs, ce, ok := topMember(params, "cursor"); ok && params[cs] != '"' && string(params[cs:ce]) != "null" {
			return nil, invalid()
		}
		return nil, pywire.Response(nil, id, s.toolsList)
	}
	return nil, nil
}

// modernMeta reports whether params names, in its _meta, a protocol
// version of 2026-07-28 or later (mcp.IsModernProtocol).
func modernMeta(params []byte) bool {
	ms, me, ok := topMember(params, "_meta")
	if !ok {
		return false
	}
	vs, ve, ok := topMember(params[ms:me], mcp.MetaKeyProtocolVersion)
	if !ok {
		return false
	}
	var v string
	return json.Unmarshal(params[ms+vs:ms+ve], &v) == nil && mcp.IsModernProtocol(v)
}

// idIn returns line with an integer id that a double does not hold exactly
// (more than 15 digits) written as a string that carries its digits: mcp-go
// decodes an id as a float64, so 12345678901234567890 came back as
// 12345678901234567000, and an id of 309 digits was refused; Python keeps
// it exact. The requestId of a notifications/cancelled is marked alike, so
// that it still names the request.
//
// When it marks the request's own id, it also returns that id as the
// request wrote it, which the wire's own replies are made from (wireEdge,
// wireParse); otherwise id is nil, and the id in out is as the request
// wrote it. Over stdio mcp-go's answer is written with the id as the
// request wrote it too (stdioAnswer); over HTTP idOut writes mcp-go's
// answers' back as it came (statusWriter).
func (s *Server) idIn(line []byte) (out, id []byte) {
	if !hasDigitRun(line, 16) {
		return line, nil
	}
	// The envelope only, without a tree: the line can be a large plan.
	if is, ie, ok := topMember(line, "id"); ok {
		if out, marked := s.markID(line, is, ie); marked {
			return out, line[is:ie]
		}
		return line, nil
	}
	ms, me, ok := topMember(line, "method")
	if !ok || string(line[ms:me]) != `"`+string(mcp.MethodNotificationCancelled)+`"` {
		return line, nil
	}
	ps, pe, ok := topMember(line, "params")
	if !ok {
		return line, nil
	}
	if rs, re, ok := topMember(line[ps:pe], "requestId"); ok {
		out, _ = s.markID(line, ps+rs, ps+re)
		return out, nil
	}
	return line, nil
}

// markID returns line with the id literal at line[is:ie] marked as idIn
// says, when it is an integer a double does not hold, and reports
// whether it did; line otherwise.
func (s *Server) markID(line []byte, is, ie int) ([]byte, bool) {
	lit := string(line[is:ie])
	digits := strings.TrimPrefix(lit, "-")
	if len(digits) <= 15 || strings.Trim(digits, "0123456789") != "" || digits[0] == '0' {
		return line, false // not a JSON integer literal, or one a double holds
	}
	out := make([]byte, 0, len(line)+len(s.idKey)+3)
	out = append(out, line[:is]...)
	out = append(out, '"')
	out = append(out, s.idKey...)
	out = append(out, lit...)
	out = append(out, '"')
	return append(out, line[ie:]...), true
}

// validID reports whether id, an id's literal as topMember found it, is
// JSON: topMember skips a value without checking it (01, -0001 and 1. pass
// it), and an answer that echoed one would not be JSON either.
func validID(id []byte) bool { return json.Valid(id) }

// idOutHead bounds where in a message idOut looks for a marked id.
const idOutHead = 64

// unmarkID is the id idIn marked, as it came (for the log); id otherwise.
func (s *Server) unmarkID(id any) any {
	if str, ok := id.(string); ok && strings.HasPrefix(str, s.idKey) {
		return json.Number(str[len(s.idKey):])
	}
	return id
}

// hasDigitRun reports whether b holds n ASCII digits in a row.
func hasDigitRun(b []byte, n int) bool {
	run := 0
	for _, c := range b {
		if c >= '0' && c <= '9' {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// idOut writes back, in an answer, the id idIn carried as a string. The
// id is among the first members of every message written (after
// "jsonrpc", perhaps behind an event's "data: "): only the head is
// searched, not an answer of megabytes.
func idOut(msg []byte, idKey string) []byte {
	mark := `"id":"` + idKey
	head := msg[:min(len(msg), idOutHead+len(mark))]
	i := bytes.Index(head, []byte(mark))
	if idKey == "" || i < 0 {
		return msg
	}
	start := i + len(mark)
	end := bytes.IndexByte(msg[start:], '"')
	if end < 0 {
		return msg
	}
	out := make([]byte, 0, len(msg))
	out = append(out, msg[:i+len(`"id":`)]...)
	out = append(out, msg[start:start+end]...)
	return append(out, msg[start+end+1:]...)
}

// wireParse is wireIn past the protocol edges, for line and id as idIn
// returned them, that also returns, for a tools/call passed on as it
// came, its parse and the text (line without its surrounding space) the
// parse's offsets are in; otherwise a zero root.
func (s *Server) wireParse(line, id []byte) (pass, reply []byte, root jsontext.Value, src []byte) {
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
	idv := root.Get("id")
	if id == nil && !idv.IsZero() {
		id = idv.Raw(src)
	}
	if params := root.Get("params"); !idv.IsZero() && idv.Kind() != jsontext.Null &&
		(params.Kind() != jsontext.Object || params.Get("name").Kind() != jsontext.String) {
		// mcp-go answered "tool '' not found".
		if s.opts.ConciergeWire {
			return nil, conciergeInvalid(id), jsontext.Value{}, nil
		}
		return nil, pywire.Error(nil, id, mcp.INVALID_PARAMS, `Invalid request parameters: a tools/call needs "params": {"name": "execute_plan", "arguments": {"steps": [...]}}`, nil), jsontext.Value{}, nil
	}
	if params := root.Get("params"); !idv.IsZero() && !params.IsZero() && params.Kind() == jsontext.Object {
		rawID := id
		if name := params.Get("name"); !name.IsZero() && name.Kind() == jsontext.String && name.Str() != ToolName {
			return nil, pywire.Response(nil, rawID, pywire.ToolResult(nil, plan.UnknownToolCallMessage(name.Str()), nil, true)), jsontext.Value{}, nil
		}
		// The SDK validates arguments as dict[str, Any] | None: an array,
		// a string, a number or a bool is invalid params.
		if args := params.Get("arguments"); !args.IsZero() && args.Kind() != jsontext.Object && args.Kind() != jsontext.Null {
			if s.opts.ConciergeWire {
				return nil, conciergeInvalid(rawID), jsontext.Value{}, nil
			}
			return nil, pywire.Error(nil, rawID, mcp.INVALID_PARAMS, "Invalid request parameters", nil), jsontext.Value{}, nil
		}
		if esc, ok := loneSurrogate(params.Raw(src)); ok {
			return nil, pywire.Error(nil, rawID, mcp.INVALID_PARAMS, "Invalid request parameters: the request holds the lone surrogate escape "+esc+
				" (half of a UTF-16 pair, without the other half), which Concierge's MCP server cannot parse: its JSON parser refuses the whole request. "+
				"Write the character itself or its full pair, or run the plan with planctl run, which keeps it as Python's str does", nil), jsontext.Value{}, nil
		}
	}
	if args := root.Get("params").Get("arguments"); args.Kind() == jsontext.Object && hasBeyondDouble(args) {
		return s.wrapArguments(src, args), nil, jsontext.Value{}, nil
	}
	pass = nullNonFinite(src, root, line)
	if &pass[0] != &line[0] {
		return pass, nil, jsontext.Value{}, nil // rewritten: the parse is not of it
	}
	return pass, nil, root, src
}

// loneSurrogate finds a \uD800-\uDFFF escape in the JSON text src that
// is not half of a pair, and returns it as written.
func loneSurrogate(src []byte) (string, bool) {
	if !bytes.Contains(src, []byte(`\u`)) {
		return "", false
	}
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(src) || src[i] != '\\' || src[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(src[i+2:i+6]), 16, 32)
		return rune(n), err == nil
	}
	for i := 0; i < len(src); i++ {
		if src[i] != '\\' {
			continue
		}
		r, ok := hex4(i)
		if !ok {
			i++ // an escape of one character: \\ cannot start a \u
			continue
		}
		switch {
		case r >= 0xd800 && r < 0xdc00:
			if r2, ok := hex4(i + 6); ok && r2 >= 0xdc00 && r2 < 0xe000 {
				i += 11
				continue
			}
			return string(src[i : i+6]), true
		case r >= 0xdc00 && r < 0xe000:
			return string(src[i : i+6]), true
		}
		i += 5
	}
	return "", false
}

// hasBeyondDouble reports whether v holds an integer literal that a double
// cannot hold. Python reads it as an exact int; encoding/json, which mcp-go
// decodes the arguments with beside keeping their text, refuses the whole
// request ("cannot unmarshal number ... of type float64").
func hasBeyondDouble(v jsontext.Value) bool {
	switch v.Kind() {
	case jsontext.Number:
		// 309 digits is the shortest integer past the largest double.
		return len(v.Str()) >= 309 && pyvalue.IsIntLiteral(v.Str()) && beyondDouble(v.Str())
	case jsontext.Array:
		for _, e := range v.Elems() {
			if hasBeyondDouble(e) {
				return true
			}
		}
	case jsontext.Object:
		for _, m := range v.Members() {
			if hasBeyondDouble(m.Value) {
				return true
			}
		}
	}
	return false
}

func beyondDouble(lit string) bool {
	_, err := strconv.ParseFloat(lit, 64)
	return err != nil
}

// wrapArguments returns the message src with its arguments args carried as
// the JSON string of their text (non-finite numbers already null) under
// s.rawKey, which mcp-go decodes without loss; handle unwraps them
// (unwrapArguments). The key is random per server, so no request can
// name it.
func (s *Server) wrapArguments(src []byte, args jsontext.Value) []byte {
	text := args.Raw(src)
	if av, err := jsontext.Parse(text); err == nil {
		text = bytes.TrimSuffix(nullNonFinite(text, av, text), []byte("\n"))
	}
	out := make([]byte, 0, len(src)+len(text)/8+len(s.rawKey)+8)
	out = append(out, src[:args.Start()]...)
	out = append(out, '{')
	out = jsontext.AppendJSONString(out, s.rawKey)
	out = append(out, ':')
	out = jsontext.AppendJSONString(out, string(text))
	out = append(out, '}')
	out = append(out, src[args.End():]...)
	if root, err := jsontext.Parse(out); err == nil {
		out = bytes.TrimSuffix(nullNonFinite(out, root, out), []byte("\n"))
	}
	return append(out, '\n')
}

// unwrapArguments returns the arguments wrapArguments carried, or data
// itself.
func (s *Server) unwrapArguments(data []byte) []byte {
	if !bytes.HasPrefix(data, []byte(`{"`+s.rawKey+`":"`)) {
		return data
	}
	v, err := jsontext.Parse(data)
	if err != nil || v.Kind() != jsontext.Object || v.Len() != 1 {
		return data
	}
	m := v.Member(0)
	if m.Key != s.rawKey || m.Value.Kind() != jsontext.String {
		return data
	}
	return []byte(m.Value.Str())
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

// topMember finds key among the top-level members of the JSON object b and
// returns the span of its value (the last, when it repeats). A key
// written with escapes is not matched; anything else (not an object, cut
// short) is reported as not found, never read past its end.
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
// The text is json.dumps of the response dict, whose steps can hold both
// the int 1 and the str "1" (two "1" keys); structuredContent is that dict
// after pydantic, a JSON object: one "1", in the first one's place with
// the last one's value, and floats spelled as pydantic-core spells them
// (1e-7, 0.00001).
func answer(resp []byte) *mcp.CallToolResult {
	text, repeats := pyvalue.DumpsIndentKeys(resp)
	structured := resp
	if repeats {
		structured = pyvalue.Values(resp)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(text)},
		StructuredContent: json.RawMessage(pyvalue.PydanticFloats(structured)),
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

// pyWriter writes every message mcp-go encodes over HTTP as the Python SDK
// writes it (pywire.Message): a JSON body, or the data lines of
// server-sent events, one whole body or event per Write as mcp-go writes
// them (a piece of one passes as it is). Before it writes, the request
// gives its turn up (turns.go): a client that reads slowly holds up
// nobody else.
//
// The copy is as large as the answer, and a client that reads slowly
// holds it while it is written: it is taken from the request's lease of
// the answer budget (--max-answers) before it is made and given back once
// written. When the budget has no room for it, mcp-go's bytes are written
// as they are: the same message, in another encoder's spelling, rather
// than memory past the bound or an answer lost.
type pyWriter struct {
	http.ResponseWriter
	turn  *turn
	lease *lease // nil: no budget
}

func (w pyWriter) Write(p []byte) (int, error) {
	w.turn.release()
	out := p
	if pyRewrites(p) {
		n := int64(pyCap(p))
		if _, ok := w.lease.take(n); ok {
			defer w.lease.give(n)
			out = pyHTTP(p)
		}
	}
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// pySlack is what the Python SDK's spelling may add to a message beyond
// mcp-go's: a tool result's "isError":false, which mcp-go leaves out.
// Every other difference (no HTML escapes, no spaces) makes it shorter.
const pySlack = 64

// pyCap is the capacity pyHTTP's copy of p is made with: room for the
// whole of it, so that it is allocated once, at the size the budget was
// asked for.
func pyCap(p []byte) int { return len(p) + pySlack }

// pyRewrites reports whether pyHTTP copies p (a message, or events
// carrying one), not passes it as it is.
func pyRewrites(p []byte) bool {
	return len(p) > 0 && p[0] == '{' || bytes.Contains(p, []byte("data: {"))
}

// pyHTTP is p, one write of an HTTP answer, with its messages as the
// Python SDK writes them.
func pyHTTP(p []byte) []byte {
	if len(p) > 0 && p[0] == '{' {
		return pywire.Message(make([]byte, 0, pyCap(p)), p)
	}
	if !bytes.Contains(p, []byte("data: {")) {
		return p
	}
	out := make([]byte, 0, pyCap(p))
	for line := range bytes.SplitAfterSeq(p, []byte("\n")) {
		if msg, ok := bytes.CutPrefix(line, []byte("data: ")); ok && len(msg) > 0 && msg[0] == '{' {
			out = append(out, "data: "...)
			out = pywire.Message(out, msg)
			continue
		}
		out = append(out, line...)
	}
	return out
}

// Flush passes on to the connection, for server-sent events.
func (w pyWriter) Flush() {
	w.turn.release()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the connection's writer.
func (w pyWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
