package plan

import (
	"fmt"
	"math"
	"strings"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// RefKey is the key that makes an argument value a reference.
const RefKey = "output_by_reference"

// Ref is an output_by_reference argument: the step it reads and the path it
// walks. Concierge turns every path element into a string with str() before
// walking, so Path holds those strings.
type Ref struct {
	Value    jsontext.Value  // the whole {"output_by_reference": ...} object
	Payload  jsontext.Value  // the value of output_by_reference
	Step     string          // the referenced step id (the payload's one key)
	StepKey  jsontext.Member // the payload member naming the step (zero when malformed)
	PathNode jsontext.Value  // the path array
	Path     []string        // str() of each path element
	// Err is Concierge's message when the reference is malformed (payload
	// not a one-key object, path not an array); Step and Path are then unset.
	Err string
}

// IsRef reports whether an argument value is a reference: an object with an
// output_by_reference key, whatever else it holds (as Concierge decides).
func IsRef(v jsontext.Value) bool {
	return !v.IsZero() && v.Kind() == jsontext.Object && !v.Get(RefKey).IsZero()
}

// ParseRef reads a reference the way Concierge's _parse_ref does.
func ParseRef(v jsontext.Value) *Ref {
	r := ParseRefValue(v)
	if r.Err == "" {
		r.Path = make([]string, r.PathNode.Len())
		for i, e := range r.PathNode.Elems() {
			r.Path[i] = pyvalue.Str(e)
		}
	}
	return &r
}

// ParseRefValue is ParseRef without Path, by value: the engine reads the path from
// PathNode, so that a reference costs no allocation (a plan of 100,000
// steps holds hundreds of thousands of them) and nothing is kept per
// reference between the validator and the run.
func ParseRefValue(v jsontext.Value) Ref { return parseRef(v, v.Get(RefKey)) }

// AsRef is ParseRefValue(v) and true when v is a reference (IsRef), false
// when it is not: the reference's key is looked up once, not twice.
func AsRef(v jsontext.Value) (Ref, bool) {
	if v.IsZero() || v.Kind() != jsontext.Object {
		return Ref{}, false
	}
	pl := v.Get(RefKey)
	if pl.IsZero() {
		return Ref{}, false
	}
	return parseRef(v, pl), true
}

// parseRef is ParseRefValue of v, whose output_by_reference value is pl.
func parseRef(v, pl jsontext.Value) Ref {
	r := Ref{Value: v, Payload: pl}
	m, n := jsontext.Member{}, 0
	if pl.Len() == 1 {
		m, _ = pl.FirstMember() // as a reference is written: no walk over members that could repeat
		n = 1
	} else {
		for _, pm := range pyvalue.Members(pl) {
			m, n = pm, n+1
		}
	}
	if pl.Kind() != jsontext.Object || n != 1 {
		r.Err = "output_by_reference must be an object with exactly one key (the step id), got: " + pyvalue.Str(pl)
		return r
	}
	r.StepKey = m
	r.Step = m.Key
	if m.Value.Kind() != jsontext.Array {
		r.Err = fmt.Sprintf("output_by_reference path for step '%s' must be an array, got: %s", m.Key, pyvalue.TypeName(m.Value))
		return r
	}
	r.PathNode = m.Value
	return r
}

// String renders the reference as people read it: step.key[0].
func (r *Ref) String() string {
	var b strings.Builder
	b.WriteString(r.Step)
	if r.Path == nil {
		for _, e := range r.PathNode.Elems() {
			b.WriteByte('.')
			b.WriteString(pyvalue.Str(e))
		}
	}
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

// Refs returns the top-level references among a step's arguments, in order,
// parsed anew on each call (with Path): a step keeps nothing of them, and
// the engine's own passes (validate, run) read references in place.
func (s *Step) Refs() []ArgRef {
	if s.Args().IsZero() || s.Args().Kind() != jsontext.Object {
		return nil
	}
	var out []ArgRef
	for _, m := range pyvalue.Members(s.Args()) {
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
	return walk(result, nil, false, step, path, jsontext.Value{})
}

// WalkNode is Walk for a reference's path given as its keys or, when path
// is nil, as the JSON node that lists them (Ref.PathNode).
func WalkNode(result []byte, step string, path []string, node jsontext.Value) ([]byte, error) {
	return walk(result, nil, false, step, path, node)
}

// WalkUnique is WalkNode for a result whose objects repeat no key (as
// pyvalue.ValuesUnique vouches for a run's results): a key's value is its
// first copy, found without reading the rest of its object.
func WalkUnique(result []byte, step string, path []string, node jsontext.Value) ([]byte, error) {
	return walk(result, nil, true, step, path, node)
}

// walk is Walk, through x for containers of at least indexMinBytes when x
// is not nil (x.result is result); unique says result's objects repeat no
// key (WalkUnique). When path is nil, the path is the elements of node (a
// reference's path array), each read as Concierge's str() reads it:
// nothing is allocated for a path of strings and integers.
func walk(result []byte, x *RawIndex, unique bool, step string, path []string, node jsontext.Value) ([]byte, error) {
	cur := jsontext.TrimSpace(result)
	n := len(path)
	var c jsontext.Cursor
	if path == nil {
		n, c = node.Len(), node.Cursor()
	}
	// open: cur runs on past its value to the result's end (a large value
	// the index went into without skipping it: RawIndex.at).
	open := false
	for k := 0; k < n; k++ {
		var key string
		if path != nil {
			key = path[k]
		} else {
			e, _ := c.Next()
			key = pyvalue.Str(e.Value)
		}
		switch jsontext.FirstByte(cur) {
		case '[':
			v, msg := elemOf(x, cur, key)
			if msg != "" {
				return nil, indexError(step, path, node, msg)
			}
			cur, open = v, false
		case '{':
			v, vOpen, ok := memberOf(x, cur, key, unique)
			if !ok {
				return nil, &ResolveError{fmt.Sprintf("Cannot resolve output_by_reference: key '%s' not found in step '%s'", key, step)}
			}
			cur, open = v, vOpen
		default:
			if open {
				cur = cur[:jsontext.SkipValue(cur, 0)]
			}
			return nil, &ResolveError{fmt.Sprintf("Cannot resolve output_by_reference: cannot traverse into %s at key '%s' in step '%s'",
				pyvalue.TypeNameRaw(cur), key, step)}
		}
	}
	if open {
		cur = cur[:jsontext.SkipValue(cur, 0)]
	}
	return cur, nil
}

// elemOf is element key of the raw array cur, read through x when x
// indexes it; msg is Python's words when key names no element.
func elemOf(x *RawIndex, cur []byte, key string) (v []byte, msg string) {
	var n int
	var spans []span
	if x != nil && len(cur) >= indexMinBytes {
		if i, ok := plainIndex(key); ok {
			if s, ok := x.elem(cur, i); ok {
				return x.at(s), ""
			}
		}
		spans = x.elems(cur)
		n = len(spans)
	} else {
		if i, ok := plainIndex(key); ok {
			if v := elemAt(cur, i); v != nil {
				return v, ""
			}
		}
		n = countElems(cur) // out of range, or not plain digits: pyvalue.Index reads it
	}
	i, ok := quickIndex(key, n)
	if !ok {
		if i, msg = pyvalue.Index(key, n); msg != "" {
			return nil, msg
		}
	}
	if spans != nil {
		return x.at(spans[i]), ""
	}
	return elemAt(cur, i), ""
}

// memberOf is the value of key in the raw object cur, read through x when
// x indexes it: its first copy when unique, else its last. open: the value
// runs on to the result's end (RawIndex.at).
func memberOf(x *RawIndex, cur []byte, key string, unique bool) (v []byte, open, ok bool) {
	switch {
	case x != nil && len(cur) >= indexMinBytes:
		s, ok := x.member(cur, key, unique)
		if !ok {
			return nil, false, false
		}
		return x.at(s), s.end == 0, true
	case unique:
		v, ok = jsontext.RawFirstMember(cur, key)
	default:
		v, ok = jsontext.RawMember(cur, key)
	}
	return v, false, ok
}

// indexError is Concierge's error for a path element that names no
// element of a list: the whole path, each element as Python's repr.
func indexError(step string, path []string, node jsontext.Value, msg string) error {
	var quoted []string
	if path != nil {
		for _, k := range path {
			quoted = append(quoted, pyvalue.ReprString(k))
		}
	} else {
		for _, e := range node.Elems() {
			quoted = append(quoted, pyvalue.ReprString(pyvalue.Str(e)))
		}
	}
	return &ResolveError{fmt.Sprintf("Cannot resolve output_by_reference [%s, %s]: %s",
		step, strings.Join(quoted, ", "), msg)}
}

// quickIndex is pyvalue.Index for the keys nearly every path holds, an
// index written as plain decimal digits (with a '-' for one from the end)
// that is in range: Python's int() reads such a key as its decimal value,
// leading zeros included. ok is false for anything else (signs, spaces,
// underscores, other digits, out of range), which pyvalue.Index reads and
// words the error of, exactly as Concierge does.
func quickIndex(key string, n int) (int, bool) {
	d := key
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return 0, false
	}
	v := 0
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	if len(d) < len(key) {
		v = -v
		if v < 0 {
			v += n
		}
	}
	if v < 0 || v >= n {
		return 0, false
	}
	return v, true
}

// plainIndex is the index a key of plain decimal digits names counted
// from the start, as Python's int() reads it (leading zeros included):
// quickIndex for a key that needs no length to be read. ok is false for
// any other key.
func plainIndex(key string) (int, bool) {
	if len(key) == 0 || key[0] == '-' {
		return 0, false
	}
	return quickIndex(key, math.MaxInt)
}

// countElems is the number of elements of the raw array b (valid JSON),
// and elemAt its element i, nil when out of range. A walk reads a small
// array's element by elemAt alone when the key is plain digits, and counts
// the elements only for other keys and out of range (pyvalue.Index needs
// the length); neither allocates, where a slice of the elements would.
func countElems(b []byte) int {
	n := 0
	forElems(b, func(int, int) bool { n++; return true })
	return n
}

func elemAt(b []byte, i int) []byte {
	var out []byte
	k := 0
	forElems(b, func(s, e int) bool {
		if k == i {
			out = b[s:e]
			return false
		}
		k++
		return true
	})
	return out
}

// forElems calls f with the span of each element of the raw array b until
// f returns false.
func forElems(b []byte, f func(start, end int) bool) {
	i := jsontext.SkipSpace(b, 1)
	if i >= len(b) || b[i] == ']' {
		return
	}
	for i < len(b) {
		i = jsontext.SkipSpace(b, i)
		end := jsontext.SkipValue(b, i)
		if !f(i, end) {
			return
		}
		i = jsontext.SkipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i++
	}
}
