package plan

import (
	"sync"

	"github.com/planctl/planctl/plan/jsontext"
)

// A RawIndex lets many references read one result without scanning it
// again each time. Walk finds a key or an element by scanning its container
// from the start (and, for an object, to its end: the last copy of a key
// wins), which is the cheapest way to read a result once; but a plan whose
// steps each read a different part of one large result (element i of a
// list of n) made that scan quadratic. The index records, for a container
// that is walked into
// again, where each element or key's value is, so that every later walk
// through it costs a lookup.
//
// An index is built only where it pays: on the second walk into a result
// (a result read once, as in a chain, pays nothing) and only for containers
// of at least indexMinBytes (scanning a small object is cheaper than a map).
// A result of indexEagerBytes or more is indexed from its first walk: that
// walk scans its containers to their ends all the same (a key's last copy
// wins, an index is checked against the length), so recording what it
// passes costs little more than the walk, and saves the second walk
// scanning them again.
type RawIndex struct {
	mu     sync.Mutex
	result []byte // the result indexed: a new result (a re-run) gets a new index
	walks  int
	arrays map[int][]span          // container offset in result -> its elements
	object map[int]map[string]span // container offset -> last value of each key
}

// span is a value's bytes as offsets into the result.
type span struct{ start, end int32 }

// indexMinBytes is the smallest container the index records.
const indexMinBytes = 1 << 10

// indexEagerBytes is the smallest result indexed from its first walk.
const indexEagerBytes = 64 << 10

func (x *RawIndex) off(b []byte) int { return cap(x.result) - cap(b) }

func (x *RawIndex) at(s span) []byte { return x.result[s.start:s.end] }

// elems returns the element spans of the raw array b (a part of x.result).
func (x *RawIndex) elems(b []byte) []span {
	o := x.off(b)
	if s, ok := x.arrays[o]; ok {
		return s
	}
	var out []span
	i := jsontext.SkipSpace(b, 1)
	if i < len(b) && b[i] != ']' {
		for i < len(b) {
			i = jsontext.SkipSpace(b, i)
			end := jsontext.SkipValue(b, i)
			out = append(out, span{int32(o + i), int32(o + end)})
			i = jsontext.SkipSpace(b, end)
			if i >= len(b) || b[i] != ',' {
				break
			}
			i++
		}
	}
	if x.arrays == nil {
		x.arrays = map[int][]span{}
	}
	x.arrays[o] = out
	return out
}

// members returns the raw object b's keys (decoded) and the span of each
// key's last value.
func (x *RawIndex) members(b []byte) map[string]span {
	o := x.off(b)
	if m, ok := x.object[o]; ok {
		return m
	}
	m := map[string]span{}
	i := jsontext.SkipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		ks := i
		i = jsontext.SkipString(b, i)
		key := string(b[ks+1 : i-1])
		for _, c := range b[ks:i] {
			if c == '\\' {
				key, _ = jsontext.RawString(b[ks:i])
				break
			}
		}
		i = jsontext.SkipSpace(b, i)
		i = jsontext.SkipSpace(b, i+1) // ':'
		end := jsontext.SkipValue(b, i)
		m[key] = span{int32(o + i), int32(o + end)}
		i = jsontext.SkipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i = jsontext.SkipSpace(b, i+1)
	}
	if x.object == nil {
		x.object = map[int]map[string]span{}
	}
	x.object[o] = m
	return m
}

// Walk is WalkNode through the index; runs reading one result at once
// take turns.
func (x *RawIndex) Walk(step string, path []string, node jsontext.Value) ([]byte, error) {
	return x.walk(false, step, path, node)
}

// WalkUnique is Walk for a result whose objects repeat no key
// (WalkUnique): an object too small to index is read up to the key's
// first copy, not to its end.
func (x *RawIndex) WalkUnique(step string, path []string, node jsontext.Value) ([]byte, error) {
	return x.walk(true, step, path, node)
}

func (x *RawIndex) walk(unique bool, step string, path []string, node jsontext.Value) ([]byte, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.walks++
	if x.walks == 1 && len(x.result) < indexEagerBytes {
		return walk(x.result, nil, unique, step, path, node)
	}
	return walk(x.result, x, unique, step, path, node)
}

// NewRawIndex is an index of result, nil for a result too small to index.
func NewRawIndex(result []byte) *RawIndex {
	if len(result) < indexMinBytes {
		return nil
	}
	return &RawIndex{result: result}
}

// Indexes reports whether x is the index of result (the same bytes, not a
// copy): a result made again, by a re-run, needs a new index.
func (x *RawIndex) Indexes(result []byte) bool {
	return x != nil && len(x.result) == len(result) && &x.result[0] == &result[0]
}
