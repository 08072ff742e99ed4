// Package pywire writes JSON-RPC messages as the MCP Python SDK (1.29)
// writes them, which is what Concierge's server sends: pydantic-core's
// to_json of the SDK's models. That means no space between tokens; strings
// with only ", \, and the control characters escaped (\b \t \n \f \r, the
// rest as \u00xx in lower case), every other character written as itself
// (no HTML escapes, no \u2028); and each model's members in the model's
// field order: jsonrpc, id, then method and params, or result, or error;
// a tools/call result's _meta, content, structuredContent and isError,
// isError written even when false.
//
// Every message planctl's MCP server writes goes through here: the answers
// it composes itself (Response, Error, ToolResult) and, through Message,
// those mcp-go encodes. Numbers and the order of members the SDK's models
// do not name are kept as written. The goldens in
// plan/mcpserver/testdata/wire, recorded from Concierge's own server, pin
// the bytes.
package pywire

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/planctl/planctl/plan/jsontext"
)

// AppendString appends s as a JSON string, escaped as pydantic-core
// escapes a str (jsontext.AppendPydanticString). A surrogate kept as
// WTF-8 (jsontext.AppendSurrogate, a lone \ud800 read from JSON) is
// written as its escape, which the SDK cannot write at all; other bytes
// that are not UTF-8 are kept, since replacing them would hide what a
// tool sent.
func AppendString(dst []byte, s string) []byte { return jsontext.AppendPydanticString(dst, s) }

// AppendValue appends the JSON text raw as the SDK writes the value it
// holds: no space between tokens, every string escaped as AppendString
// escapes it. Members and numbers stay as written. raw is meant to be
// valid JSON; anything else is copied along without space, never read
// past its end.
func AppendValue(dst, raw []byte) []byte {
	start := 0
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r':
			dst = append(dst, raw[start:i]...)
			start = i + 1
		case '"':
			end, rewrite := scanString(raw, i)
			if rewrite {
				dst = append(dst, raw[start:i]...)
				dst = appendRawString(dst, raw[i:end])
				start = end
			}
			i = end - 1 // else copied with the run
		}
	}
	return append(dst, raw[start:]...)
}

// scanString returns the end of the JSON string that starts at raw[i]
// (len(raw) when it is cut short), and whether appendRawString would
// write it otherwise than as it is: a \u or \/ escape, a control
// character, a backslash that starts no escape, or no closing quote.
func scanString(raw []byte, i int) (end int, rewrite bool) {
	for j := i + 1; j < len(raw); j++ {
		switch c := raw[j]; {
		case c == '"':
			return j + 1, rewrite
		case c == '\\':
			if j+1 >= len(raw) {
				return len(raw), true
			}
			switch raw[j+1] {
			case '"', '\\', 'b', 't', 'n', 'f', 'r':
			default:
				rewrite = true
			}
			j++
		case c < 0x20:
			rewrite = true
		case c == 0xed:
			if _, ok := jsontext.SurrogateAt(raw, j); ok {
				rewrite = true
			}
		}
	}
	return len(raw), true
}

// appendRawString appends the JSON string literal str (quotes included)
// re-escaped as AppendString would escape its value. A \u escape of half
// a surrogate pair with no other half is kept as an escape: the SDK
// cannot write it at all.
func appendRawString(dst, str []byte) []byte {
	dst = append(dst, '"')
	body := str[1:]
	if len(body) > 0 && body[len(body)-1] == '"' && !escapedQuote(body) {
		body = body[:len(body)-1]
	}
	start := 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == 0xed {
			if r, ok := jsontext.SurrogateAt(body, i); ok {
				dst = append(dst, body[start:i]...)
				dst = jsontext.AppendRuneEscape(dst, r)
				i += 2
				start = i + 1
			}
			continue
		}
		if c >= 0x20 && c != '\\' {
			continue
		}
		if c == '\\' && i+1 < len(body) {
			switch body[i+1] {
			case '"', '\\', 'b', 't', 'n', 'f', 'r':
				i++ // written as pydantic writes it: kept in the run
				continue
			}
		}
		dst = append(dst, body[start:i]...)
		if c < 0x20 {
			dst = jsontext.AppendRuneEscape(dst, rune(c))
			start = i + 1
			continue
		}
		if i+1 >= len(body) {
			dst = append(dst, '\\', '\\')
			start = len(body)
			break
		}
		i++
		switch e := body[i]; e {
		case '/':
			dst = append(dst, '/')
		case 'u':
			r, ok := jsontext.Hex4(body[i+1:])
			if !ok {
				dst = append(dst, '\\', '\\', 'u')
				break
			}
			i += 4
			switch {
			case r < 0x20 || r == '"' || r == '\\':
				dst = jsontext.AppendRuneEscape(dst, r)
			case r >= 0xd800 && r < 0xdc00:
				if i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
					if r2, ok := jsontext.Hex4(body[i+3:]); ok && r2 >= 0xdc00 && r2 < 0xe000 {
						dst = utf8.AppendRune(dst, 0x10000+(r-0xd800)<<10+(r2-0xdc00))
						i += 6
						break
					}
				}
				dst = jsontext.AppendRuneEscape(dst, r)
			case r >= 0xdc00 && r < 0xe000:
				dst = jsontext.AppendRuneEscape(dst, r)
			default:
				dst = utf8.AppendRune(dst, r)
			}
		default:
			// Not a JSON escape: kept as text, its backslash escaped.
			dst = append(dst, '\\', '\\', e)
		}
		start = i + 1
	}
	dst = append(dst, body[start:]...)
	return append(dst, '"')
}

// escapedQuote reports whether the last byte of body, a quote, is escaped
// (an odd run of backslashes before it): then body was cut short.
func escapedQuote(body []byte) bool {
	n := 0
	for i := len(body) - 2; i >= 0 && body[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// Response appends the answer to request id (its JSON text, as the request
// wrote it) whose result is the JSON text result, and a newline.
func Response(dst, id, result []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = AppendValue(dst, id)
	dst = append(dst, `,"result":`...)
	dst = AppendValue(dst, result)
	return append(dst, "}\n"...)
}

// Error appends the JSON-RPC error answer to request id (its JSON text;
// null for a request that could not be read), and a newline. data, when
// not nil, is written as the error's data: the SDK's own refusals carry
// an empty one.
func Error(dst, id []byte, code int, message string, data *string) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = AppendValue(dst, id)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	dst = append(dst, `,"message":`...)
	dst = AppendString(dst, message)
	if data != nil {
		dst = append(dst, `,"data":`...)
		dst = AppendString(dst, *data)
	}
	return append(dst, "}}\n"...)
}

// ToolResult appends the result of a tools/call that answers with one text
// block: text, then structured (JSON text) when it is not nil, then
// isError.
func ToolResult(dst []byte, text string, structured []byte, isError bool) []byte {
	dst = append(dst, `{"content":[{"type":"text","text":`...)
	dst = AppendString(dst, text)
	dst = append(dst, "}]"...)
	if structured != nil {
		dst = append(dst, `,"structuredContent":`...)
		dst = AppendValue(dst, structured)
	}
	if isError {
		return append(dst, `,"isError":true}`...)
	}
	return append(dst, `,"isError":false}`...)
}

// ToolResponse appends the answer to request id whose result is
// ToolResult's, and a newline: Response without a copy of the result.
func ToolResponse(dst, id []byte, text string, structured []byte, isError bool) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = AppendValue(dst, id)
	dst = append(dst, `,"result":`...)
	dst = ToolResult(dst, text, structured, isError)
	return append(dst, "}\n"...)
}

// The SDK's models, by the members they name, in their field order; a
// member they do not name follows them, in the order it came.
var (
	messageOrder    = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	toolResultOrder = []string{"_meta", "content", "structuredContent", "isError"}
	textOrder       = []string{"type", "text", "annotations", "_meta"}
	errorOrder      = []string{"code", "message", "data"}
	progressOrder   = []string{"_meta", "progressToken", "progress", "total", "message"}
)

// Message appends the JSON-RPC message msg, written by another encoder
// (mcp-go's), as the SDK writes it, with msg's trailing newline if it
// has one. A tools/call result is the only result with a top-level
// "content" array. Anything that is not one JSON object is appended as
// it is.
func Message(dst, msg []byte) []byte {
	body := bytes.TrimRight(msg, " \t\r\n")
	nl := len(body) < len(msg)
	members, ok := membersOf(body)
	if !ok {
		return append(dst, msg...)
	}
	dst = appendOrdered(dst, body, members, messageOrder, func(dst []byte, key string, v []byte) []byte {
		switch key {
		case "result":
			if rm, ok := membersOf(v); ok && has(v, rm, "content") {
				return appendToolResult(dst, v, rm)
			}
		case "error":
			if em, ok := membersOf(v); ok {
				return appendOrdered(dst, v, em, errorOrder, nil)
			}
		case "params":
			if method, ok := memberValue(body, members, "method"); ok && string(method) == `"notifications/progress"` {
				if pm, ok := membersOf(v); ok {
					return appendOrdered(dst, v, pm, progressOrder, nil)
				}
			}
		}
		return AppendValue(dst, v)
	})
	if nl {
		dst = append(dst, '\n')
	}
	return dst
}

// appendToolResult appends a tools/call result, isError written even when
// false.
func appendToolResult(dst, v []byte, members []member) []byte {
	return appendOrderedWith(dst, v, members, toolResultOrder, map[string]string{"isError": "false"},
		func(dst []byte, key string, raw []byte) []byte {
			if key == "content" && len(raw) > 0 && raw[0] == '[' {
				return appendContent(dst, raw)
			}
			return AppendValue(dst, raw)
		})
}

// appendContent appends a content array, text blocks in TextContent's
// field order.
func appendContent(dst, arr []byte) []byte {
	base := len(dst)
	dst = append(dst, '[')
	i := jsontext.SkipSpace(arr, 1)
	first := true
	for i < len(arr) && arr[i] != ']' {
		e := jsontext.SkipValue(arr, i)
		if e <= i || e > len(arr) {
			return AppendValue(dst[:base], arr) // not what a content array is: as written
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		item := arr[i:e]
		if im, ok := membersOf(item); ok {
			dst = appendOrdered(dst, item, im, textOrder, nil)
		} else {
			dst = AppendValue(dst, item)
		}
		i = jsontext.SkipSpace(arr, e)
		if i < len(arr) && arr[i] == ',' {
			i = jsontext.SkipSpace(arr, i+1)
		}
	}
	return append(dst, ']')
}

// member is the span of one member of an object: its key's text (inside
// the quotes) and its value.
type member struct{ ks, ke, vs, ve int }

// membersOf lists the members of the JSON object b, in order; false when b
// is not one whole object. Keys with escapes are kept as written.
func membersOf(b []byte) ([]member, bool) {
	i := jsontext.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	var ms []member
	i = jsontext.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return ms, jsontext.SkipSpace(b, i+1) == len(b)
	}
	for i < len(b) && b[i] == '"' {
		ke := jsontext.SkipString(b, i)
		if ke > len(b) {
			return nil, false
		}
		m := member{ks: i + 1, ke: ke - 1}
		i = jsontext.SkipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		i = jsontext.SkipSpace(b, i+1)
		e := jsontext.SkipValue(b, i)
		if i >= len(b) || e <= i || e > len(b) {
			return nil, false
		}
		m.vs, m.ve = i, e
		ms = append(ms, m)
		i = jsontext.SkipSpace(b, e)
		if i >= len(b) {
			return nil, false
		}
		if b[i] == '}' {
			return ms, jsontext.SkipSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return nil, false
		}
		i = jsontext.SkipSpace(b, i+1)
	}
	return nil, false
}

func has(b []byte, ms []member, key string) bool {
	_, ok := memberValue(b, ms, key)
	return ok
}

// memberValue is the value of the first member named key.
func memberValue(b []byte, ms []member, key string) ([]byte, bool) {
	for _, m := range ms {
		if string(b[m.ks:m.ke]) == key {
			return b[m.vs:m.ve], true
		}
	}
	return nil, false
}

// appendOrdered appends the object b, whose members are ms, with the
// members named in order first, in that order, then the others as they
// came. value, when set, appends a member's value; AppendValue otherwise.
func appendOrdered(dst, b []byte, ms []member, order []string, value func(dst []byte, key string, raw []byte) []byte) []byte {
	return appendOrderedWith(dst, b, ms, order, nil, value)
}

// appendOrderedWith is appendOrdered that writes, in its place, a member
// named in order that b lacks and defaults holds (its JSON text).
func appendOrderedWith(dst, b []byte, ms []member, order []string, defaults map[string]string, value func(dst []byte, key string, raw []byte) []byte) []byte {
	if value == nil {
		value = func(dst []byte, _ string, raw []byte) []byte { return AppendValue(dst, raw) }
	}
	dst = append(dst, '{')
	first := true
	put := func(m member) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = AppendValue(dst, b[m.ks-1:m.ke+1])
		dst = append(dst, ':')
		dst = value(dst, string(b[m.ks:m.ke]), b[m.vs:m.ve])
	}
	done := make([]bool, len(ms))
	for _, k := range order {
		found := false
		for j, m := range ms {
			if !done[j] && string(b[m.ks:m.ke]) == k {
				put(m)
				done[j] = true
				found = true
				break
			}
		}
		if d, ok := defaults[k]; ok && !found {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = AppendString(dst, k)
			dst = append(dst, ':')
			dst = append(dst, d...)
		}
	}
	for j, m := range ms {
		if !done[j] {
			put(m)
		}
	}
	return append(dst, '}')
}
