package plan

import (
	"fmt"
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
	r := &Ref{Value: v, Payload: v.Get(RefKey)}
	pl := r.Payload
	var m jsontext.Member
	n := 0
	for _, pm := range pyvalue.Members(pl) {
		m, n = pm, n+1
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
	r.Path = make([]string, m.Value.Len())
	for i, e := range m.Value.Elems() {
		r.Path[i] = pyvalue.Str(e)
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
	if s.Args.IsZero() || s.Args.Kind() != jsontext.Object {
		return nil
	}
	var out []ArgRef
	for _, m := range pyvalue.Members(s.Args) {
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
				elems, _ = jsontext.RawElems(cur)
				n = len(elems)
			}
			i, msg := pyvalue.Index(key, n)
			if msg != "" {
				quoted := make([]string, len(path))
				for j, k := range path {
					quoted[j] = pyvalue.ReprString(k)
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
				v, ok = jsontext.RawMember(cur, key)
			}
			if !ok {
				return nil, &ResolveError{fmt.Sprintf("Cannot resolve output_by_reference: key '%s' not found in step '%s'", key, step)}
			}
			cur = v
		default:
			return nil, &ResolveError{fmt.Sprintf("Cannot resolve output_by_reference: cannot traverse into %s at key '%s' in step '%s'",
				pyvalue.TypeNameRaw(cur), key, step)}
		}
	}
	return cur, nil
}

// firstByte and trimSpace read a raw result's JSON whitespace only, as the
// walkers of jsontext do.
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
