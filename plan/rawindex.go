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
	arrays map[int]*indexedArray  // container offset in result -> its elements
	object map[int]*indexedObject // container offset -> each key's value
}

// An indexedArray is the elements of one array, recorded as far as walks
// have needed them: a walk to element i scans up to it, not to the end (the
// steps that each read element i of one large list scan the list once
// between them, not once each). next is where the scan stopped, as an
// offset into the array's text.
type indexedArray struct {
	spans []span
	next  int
	done  bool
}

// An indexedObject is one object's keys (decoded) and the span of each
// key's value, recorded as far as walks have needed them: to the end for a
// walk that takes a key's last copy, up to the key for one that may take
// its first (a result that repeats no key, WalkUnique).
type indexedObject struct {
	m    map[string]span
	next int
	done bool
	// pending: the scan stopped at the start of the value of key pendingKey
	// (next), a value too large to skip in passing (a walk goes into it,
	// not past it); the next scan skips it first.
	pending    bool
	pendingKey string
}

// span is a value's bytes as offsets into the result. An end of 0 is not
// known yet: the value of a key a unique walk went into without skipping
// it (indexedObject.pending), which runs to the result's end as far as
// at is concerned.
type span struct{ start, end int32 }

// indexMinBytes is the smallest container the index records.
const indexMinBytes = 1 << 10

// indexEagerBytes is the smallest result indexed from its first walk.
const indexEagerBytes = 64 << 10

func (x *RawIndex) off(b []byte) int { return cap(x.result) - cap(b) }

// at is the bytes of s: to the result's end when s's end is not known.
func (x *RawIndex) at(s span) []byte {
	if s.end == 0 {
		return x.result[s.start:]
	}
	return x.result[s.start:s.end]
}

// array is the record of the raw array b (a part of x.result), made on
// first use.
func (x *RawIndex) array(b []byte) *indexedArray {
	o := x.off(b)
	if a, ok := x.arrays[o]; ok {
		return a
	}
	a := &indexedArray{next: jsontext.SkipSpace(b, 1)}
	a.done = a.next >= len(b) || b[a.next] == ']'
	if x.arrays == nil {
		x.arrays = map[int]*indexedArray{}
	}
	x.arrays[o] = a
	return a
}

// scan records b's elements until it has n of them (all of them when n
// is negative) or the array ends.
func (a *indexedArray) scan(b []byte, o, n int) {
	i := a.next
	for !a.done && (n < 0 || len(a.spans) < n) {
		i = jsontext.SkipSpace(b, i)
		end := jsontext.SkipValue(b, i)
		a.spans = append(a.spans, span{int32(o + i), int32(o + end)})
		i = jsontext.SkipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			a.done = true
		}
		i++
	}
	a.next = i
}

// elems returns the element spans of the raw array b.
func (x *RawIndex) elems(b []byte) []span {
	a := x.array(b)
	a.scan(b, x.off(b), -1)
	return a.spans
}

// elem returns element i of the raw array b, when it has one, scanning
// only as far as it.
func (x *RawIndex) elem(b []byte, i int) (span, bool) {
	a := x.array(b)
	if i >= len(a.spans) {
		a.scan(b, x.off(b), i+1)
	}
	if i < len(a.spans) {
		return a.spans[i], true
	}
	return span{}, false
}

// member returns the span of key's value in the raw object b: its last
// copy, or, when unique says the object repeats no key, its only one,
// found without scanning past it.
func (x *RawIndex) member(b []byte, key string, unique bool) (span, bool) {
	o := x.off(b)
	obj, ok := x.object[o]
	if !ok {
		obj = &indexedObject{m: map[string]span{}, next: jsontext.SkipSpace(b, 1)}
		obj.done = obj.next >= len(b) || b[obj.next] != '"'
		if x.object == nil {
			x.object = map[int]*indexedObject{}
		}
		x.object[o] = obj
	}
	if s, ok := obj.m[key]; ok && (unique || obj.done) {
		return s, true
	}
	i := obj.next
	if obj.pending {
		obj.pending = false
		end := jsontext.SkipValue(b, i)
		if s := obj.m[obj.pendingKey]; s.end == 0 {
			obj.m[obj.pendingKey] = span{s.start, int32(o + end)}
		}
		i = obj.pastValue(b, end)
	}
	for !obj.done && i < len(b) && b[i] == '"' { // a result not quite JSON stops the scan too
		ks := i
		var escaped bool
		i, escaped = jsontext.SkipStringEscaped(b, i)
		k := string(b[ks+1 : i-1])
		if escaped {
			k, _ = jsontext.RawString(b[ks:i])
		}
		i = jsontext.SkipSpace(b, i)
		i = jsontext.SkipSpace(b, i+1) // ':'
		if unique && k == key {
			// The key a walk goes into: its value is skipped only if it is
			// small. A large one (the list of a result's items) is read
			// into by this walk and maybe never past: its end is found
			// when a later scan needs what follows it.
			lim := min(len(b), i+indexMinBytes)
			if end := jsontext.SkipValue(b[:lim], i); end < lim {
				obj.m[k] = span{int32(o + i), int32(o + end)}
				i = obj.pastValue(b, end)
			} else {
				obj.m[k] = span{int32(o + i), 0}
				obj.pending, obj.pendingKey = true, k
			}
			break
		}
		end := jsontext.SkipValue(b, i)
		obj.m[k] = span{int32(o + i), int32(o + end)}
		i = obj.pastValue(b, end)
	}
	obj.next = i
	s, ok := obj.m[key]
	return s, ok
}

// pastValue is where the scan of the object b goes on after a value that
// ends at end: the next key, or the object's end (done).
func (obj *indexedObject) pastValue(b []byte, end int) int {
	i := jsontext.SkipSpace(b, end)
	if i >= len(b) || b[i] != ',' {
		obj.done = true
	}
	return jsontext.SkipSpace(b, i+1)
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
