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
		b = append(append(append(b, '['), jsontext.AppendDisplay(nil, jsontext.AppendCompact(nil, e.Raw(src)))...), ']')
	}
	return string(b)
}

// showJSON is JSON text ready to draw (jsontext.AppendDisplay): escapes of
// characters that draw decoded, hidden characters shown as escapes.
func showJSON(raw []byte) string { return jsontext.Display(raw) }

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
