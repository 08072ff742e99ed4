package tui

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// Paths and strings as the debugger shows them. A path reads
// step.key["a.b"][0]: a key that is a plain name follows a dot, any other
// key (one with a dot, a bracket, a space, or that starts with a digit, so
// that key "0" is ["0"]) is a JSON string in brackets, and an array index is
// a bare number in brackets. Nothing in it is ambiguous, unlike the dotted
// form, where key "a.b" and keys "a", "b" read the same.

// isName reports whether a key can be shown bare after a dot.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c == '-' || c >= '0' && c <= '9'):
		default:
			return false
		}
	}
	return true
}

// appendKey appends one object key of a path.
func appendKey(b []byte, k string) []byte {
	if isName(k) {
		return append(append(b, '.'), k...)
	}
	b = append(b, '[')
	return append(jsontext.AppendJSONString(b, k), ']')
}

// refPath writes a path from its root (a step id, or "response").
func refPath(root string, path []pathElem) string {
	var b []byte
	if isName(root) {
		b = append(b, root...)
	} else {
		b = jsontext.AppendJSONString(b, root)
	}
	return string(b) + pathSuffix(path)
}

// pathSuffix writes the elements of a path: .key["a.b"][0].
func pathSuffix(path []pathElem) string {
	var b []byte
	for _, e := range path {
		if e.isIdx {
			b = append(strconv.AppendInt(append(b, '['), int64(e.index), 10), ']')
		} else {
			b = appendKey(b, e.key)
		}
	}
	return string(b)
}

// pathArray is a path as the JSON array an output_by_reference holds:
// keys as strings, indexes as numbers.
func pathArray(path []pathElem) string {
	b := []byte{'['}
	for k, e := range path {
		if k > 0 {
			b = append(b, ", "...)
		}
		if e.isIdx {
			b = strconv.AppendInt(b, int64(e.index), 10)
		} else {
			b = jsontext.AppendJSONString(b, e.key)
		}
	}
	return string(append(b, ']'))
}

// refObject is the reference that reads path in step's result.
func refObject(step string, path []pathElem) string {
	b := []byte(`{"output_by_reference": {`)
	b = jsontext.AppendJSONString(b, step)
	b = append(b, ": "...)
	b = append(b, pathArray(path)...)
	return string(append(b, "}}"...))
}

// refText shows a reference of the plan in the same form: a string path
// element is a key (["0"] when it is "0"), a number an index ([0]), and
// anything else its JSON text in brackets.
func refText(r *plan.Ref, src []byte) string {
	var b []byte
	if isName(r.Step) {
		b = append(b, r.Step...)
	} else {
		b = jsontext.AppendJSONString(b, r.Step)
	}
	if r.PathNode.IsZero() {
		return string(b)
	}
	for _, e := range r.PathNode.Elems() {
		if e.Kind() == jsontext.String {
			b = appendKey(b, e.Str())
			continue
		}
		b = append(append(append(b, '['), decodeEscapes(jsontext.AppendCompact(nil, e.Raw(src)))...), ']')
	}
	return string(b)
}

// decodeEscapes returns JSON text with every \u escape inside its strings
// decoded to the character it stands for, when that character prints
// (surrogate pairs included); other escapes stay (\n, \", \\, and \u
// escapes of control, format and lone surrogate characters, which a
// terminal would not show faithfully). Text cut in the middle keeps its
// partial escape as it is. It returns raw itself when there is nothing to
// decode.
func decodeEscapes(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(`\u`)) {
		return raw
	}
	out := make([]byte, 0, len(raw))
	in := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case !in:
			in = c == '"'
		case c == '"':
			in = false
		case c == '\\':
			if r, n := unescapeU(raw[i:]); n > 0 && unicode.IsPrint(r) {
				if r == '"' || r == '\\' {
					out = append(out, '\\')
				}
				out = utf8.AppendRune(out, r)
				i += n - 1
				continue
			}
			if i+1 < len(raw) {
				out = append(out, c)
				i++
				c = raw[i]
			}
		}
		out = append(out, c)
	}
	return out
}

// unescapeU decodes the \uXXXX escape (or surrogate pair) at the start of
// b; n is 0 when there is none or it is a lone surrogate.
func unescapeU(b []byte) (r rune, n int) {
	hex4 := func(b []byte) (rune, bool) {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[2:6]), 16, 32)
		return rune(v), err == nil
	}
	r, ok := hex4(b)
	switch {
	case !ok:
		return 0, 0
	case r >= 0xd800 && r < 0xdc00:
		lo, ok := hex4(b[6:min(len(b), 12)])
		if !ok || lo < 0xdc00 || lo >= 0xe000 {
			return 0, 0
		}
		return 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00), 12
	case r >= 0xdc00 && r < 0xe000:
		return 0, 0
	}
	return r, 6
}

// showJSON is JSON text ready to draw: escapes decoded as above and
// anything unsafe for a terminal replaced.
func showJSON(raw []byte) string { return sanitize(decodeEscapes(raw)) }

// lowerSameLen lowers b without changing its length (bytes.ToLower may:
// 'İ' becomes three bytes), so offsets into it are offsets into b.
func lowerSameLen(b []byte) []byte {
	l := bytes.ToLower(b)
	if len(l) == len(b) {
		return l
	}
	l = make([]byte, 0, len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if lr := unicode.ToLower(r); r != utf8.RuneError && utf8.RuneLen(lr) == n {
			l = utf8.AppendRune(l, lr)
		} else {
			l = append(l, b[:n]...)
		}
		b = b[n:]
	}
	return l
}

// foldFor lowers s when the query asks for any case.
func foldFor(s string, fold bool) string {
	if fold {
		return strings.ToLower(s)
	}
	return s
}
