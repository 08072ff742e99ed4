package plan

import (
	"bytes"
	"fmt"
	"strings"
)

// RefKey is the key that makes an argument value a reference.
const RefKey = "output_by_reference"

// Ref is an output_by_reference argument: the step it reads and the path it
// walks. Concierge turns every path element into a string with str() before
// walking, so Path holds those strings.
type Ref struct {
	Value    *Value   // the whole {"output_by_reference": ...} object
	Payload  *Value   // the value of output_by_reference
	Step     string   // the referenced step id (the payload's one key)
	StepKey  *Member  // the payload member naming the step
	PathNode *Value   // the path array
	Path     []string // str() of each path element
	// Err is Concierge's message when the reference is malformed (payload
	// not a one-key object, path not an array); Step and Path are then unset.
	Err string
}

// IsRef reports whether an argument value is a reference: an object with an
// output_by_reference key, whatever else it holds (as Concierge decides).
func IsRef(v *Value) bool { return v != nil && v.Kind == Object && v.Get(RefKey) != nil }

// ParseRef reads a reference the way Concierge's _parse_ref does.
func ParseRef(v *Value) *Ref {
	r := &Ref{Value: v, Payload: v.Get(RefKey)}
	pl := r.Payload
	members := pyMembers(pl)
	if pl.Kind != Object || len(members) != 1 {
		r.Err = "output_by_reference must be an object with exactly one key (the step id), got: " + PyStr(pl)
		return r
	}
	m := &members[0]
	r.StepKey = m
	r.Step = m.Key
	if m.Value.Kind != Array {
		r.Err = fmt.Sprintf("output_by_reference path for step '%s' must be an array, got: %s", m.Key, PyTypeName(m.Value))
		return r
	}
	r.PathNode = m.Value
	r.Path = make([]string, len(m.Value.Elems))
	for i, e := range m.Value.Elems {
		r.Path[i] = PyStr(e)
	}
	return r
}

// String renders the reference as people read it: step.key[0].
func (r *Ref) String() string {
	var b strings.Builder
	b.WriteString(r.Step)
	for _, k := range r.Path {
		b.WriteByte('.')
		b.WriteString(k)
	}
	return b.String()
}

// ArgRef is one top-level argument of a step that is a reference.
type ArgRef struct {
	Param string
	Ptr   string
	*Ref
}

// Refs returns the top-level references among a step's arguments, in order.
// They are parsed once and shared: callers must not modify them.
func (s *Step) Refs() []ArgRef {
	s.refsOnce.Do(func() { s.refs = parseRefs(s) })
	return s.refs
}

func parseRefs(s *Step) []ArgRef {
	if s.Args == nil || s.Args.Kind != Object {
		return nil
	}
	var out []ArgRef
	for _, m := range pyMembers(s.Args) {
		if IsRef(m.Value) {
			out = append(out, ArgRef{Param: m.Key, Ptr: s.ArgPtr(m.Key), Ref: ParseRef(m.Value)})
		}
	}
	return out
}

// ResolveError is a reference that cannot be resolved at run time, with
// Concierge's message.
type ResolveError struct{ Msg string }

func (e *ResolveError) Error() string { return e.Msg }

// Walk follows path through a raw JSON result exactly as Concierge's
// _resolve_ref does, and returns the raw bytes of the value it reaches. Keys
// are matched literally: no character of a key has a meaning.
func Walk(result []byte, step string, path []string) ([]byte, error) {
	return walk(result, nil, step, path)
}

// walk is Walk, through x for containers of at least indexMinBytes when x
// is not nil (x.result is result).
func walk(result []byte, x *rawIndex, step string, path []string) ([]byte, error) {
	cur := trimSpace(result)
	for _, key := range path {
		switch firstByte(cur) {
		case '[':
			var n int
			var elems [][]byte
			var spans []span
			if x != nil && len(cur) >= indexMinBytes {
				spans = x.elems(cur)
				n = len(spans)
			} else {
				elems = rawElems(cur)
				n = len(elems)
			}
			i, msg := pyIndex(key, n)
			if msg != "" {
				quoted := make([]string, len(path))
				for j, k := range path {
					quoted[j] = PyReprString(k)
				}
				return nil, &ResolveError{fmt.Sprintf("Cannot resolve output_by_reference [%s, %s]: %s",
					step, strings.Join(quoted, ", "), msg)}
			}
			if spans != nil {
				cur = x.at(spans[i])
			} else {
				cur = elems[i]
			}
		case '{':
			var v []byte
			var ok bool
			if x != nil && len(cur) >= indexMinBytes {
				var s span
				if s, ok = x.members(cur)[key]; ok {
					v = x.at(s)
				}
			} else {
				v, ok = rawMember(cur, key)
			}
			if !ok {
				return nil, &ResolveError{fmt.Sprintf("Cannot resolve output_by_reference: key '%s' not found in step '%s'", key, step)}
			}
			cur = v
		default:
			return nil, &ResolveError{fmt.Sprintf("Cannot resolve output_by_reference: cannot traverse into %s at key '%s' in step '%s'",
				pyTypeNameRaw(cur), key, step)}
		}
	}
	return cur, nil
}

// The raw walkers below read JSON that is known to be valid (results are
// checked when they arrive), so they only find boundaries.

func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpaceAt(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipValue returns the offset just past the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

func skipString(b []byte, i int) int {
	i++
	for i < len(b) {
		switch b[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i + 1
		}
		i++
	}
	return i
}

func rawElems(b []byte) [][]byte {
	var out [][]byte
	i := skipSpaceAt(b, 1)
	if i < len(b) && b[i] == ']' {
		return out
	}
	for i < len(b) {
		i = skipSpaceAt(b, i)
		end := skipValue(b, i)
		out = append(out, b[i:end])
		i = skipSpaceAt(b, end)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i++
	}
	return out
}

// rawMember finds key in a raw object; a repeated key gives its last value,
// as json.loads does.
func rawMember(b []byte, key string) ([]byte, bool) {
	var found []byte
	ok := false
	i := skipSpaceAt(b, 1)
	for i < len(b) && b[i] == '"' {
		ks := i
		i = skipString(b, i)
		match := keyEquals(b[ks:i], key)
		i = skipSpaceAt(b, i)
		i = skipSpaceAt(b, i+1) // ':'
		end := skipValue(b, i)
		if match {
			found, ok = b[i:end], true
		}
		i = skipSpaceAt(b, end)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i = skipSpaceAt(b, i+1)
	}
	return found, ok
}

// keyEquals compares a raw JSON string token (with quotes) to key.
func keyEquals(tok []byte, key string) bool {
	body := tok[1 : len(tok)-1]
	// A body with an escape is compared decoded, even when its raw text
	// equals key: the key "a\\u0062c" (with a backslash) is not the
	// result's key "a\u0062c", which is "abc".
	if bytes.IndexByte(body, '\\') >= 0 {
		s, err := decodeString(tok)
		return err == nil && s == key
	}
	return string(body) == key
}

func decodeString(tok []byte) (string, error) {
	p := parser{src: tok}
	return p.string()
}

// RawMember returns the value of key in a raw JSON object (the last one when
// the key repeats, as json.loads keeps it), without parsing the rest. raw
// must be valid JSON.
func RawMember(raw []byte, key string) ([]byte, bool) {
	raw = trimSpace(raw)
	if firstByte(raw) != '{' {
		return nil, false
	}
	return rawMember(raw, key)
}

// RawElems splits a raw JSON array into its elements. raw must be valid JSON.
func RawElems(raw []byte) ([][]byte, bool) {
	raw = trimSpace(raw)
	if firstByte(raw) != '[' {
		return nil, false
	}
	return rawElems(raw), true
}

// RawString decodes a raw JSON string token, quotes included.
func RawString(tok []byte) (string, error) {
	tok = trimSpace(tok)
	if firstByte(tok) != '"' {
		return "", fmt.Errorf("not a JSON string")
	}
	return decodeString(tok)
}
