package tui

import (
	"errors"
	"fmt"

	"github.com/planctl/planctl/plan/jsontext"
)

// doc is a JSON document indexed for the result tree: one node per value,
// in document order (pre-order), each pointing into the raw bytes. Nothing
// is decoded or copied until a row is drawn, so a large result costs its
// bytes plus one node a value once read.
type doc struct {
	src   []byte
	nodes []node
}

// node is one JSON value. Offsets are int32: a result over 2 GiB is refused.
type node struct {
	keyStart int32 // offset of the key's opening quote; -1 for array elements and the root
	keyEnd   int32
	start    int32 // the value's bytes
	end      int32
	parent   int32 // -1 for the root
	next     int32 // the index just past this node's subtree
	idx      int32 // position among its siblings
	nkids    int32
	depth    uint16
	kind     jsontext.Kind
}

// maxTreeDepth bounds nesting: the engine's own bound (a result nested
// deeper fails its step in the engine, so it never reaches the tree).
const maxTreeDepth = jsontext.MaxDepth

func (n *node) container() bool { return n.kind == jsontext.Object || n.kind == jsontext.Array }

// parseDoc indexes src, which must be one JSON value. The engine's parser
// (jsontext.Parse) reads it, so the tree accepts exactly what the engine
// does; its tree of Values is then laid out flat, in pre-order, without
// recursion, and dropped: the flat nodes are what O(1) folding and drawing
// only the rows on screen need (tree.go), at 36 bytes a value.
func parseDoc(src []byte) (*doc, error) {
	if len(src) > 1<<31-1 {
		return nil, errors.New("the result is larger than 2 GiB: write a trace and inspect it with other tools")
	}
	root, err := jsontext.Parse(src)
	if err != nil {
		off := 0
		var se *jsontext.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		return nil, fmt.Errorf("the result is not valid JSON at byte %d: %w", off, err)
	}
	return flatten(src, root), nil
}

// flatten lays the Values out in document order. Each frame of the stack
// is an open container and how many of its children are laid out.
func flatten(src []byte, root jsontext.Value) *doc {
	d := &doc{src: src, nodes: make([]node, 0, root.Values())}
	type frame struct {
		kids jsontext.Cursor
		self int32
		kid  int
	}
	add := func(v jsontext.Value, parent int32, idx int, ks, ke int) int32 {
		n := node{keyStart: int32(ks), keyEnd: int32(ke), start: int32(v.Start()), end: int32(v.End()),
			parent: parent, idx: int32(idx), kind: v.Kind()}
		if v.Kind() == jsontext.Null && v.Str() != "" {
			n.kind = jsontext.Number // 1e400, NaN: drawn as the number written
		}
		if parent >= 0 {
			n.depth = d.nodes[parent].depth + 1
		}
		switch v.Kind() {
		case jsontext.Array:
			n.nkids = int32(v.Len())
		case jsontext.Object:
			n.nkids = int32(v.Len())
		}
		self := int32(len(d.nodes))
		n.next = self + 1
		d.nodes = append(d.nodes, n)
		return self
	}
	stack := []frame{{kids: root.Cursor(), self: add(root, -1, 0, -1, -1)}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.kid == int(d.nodes[f.self].nkids) {
			d.nodes[f.self].next = int32(len(d.nodes))
			stack = stack[:len(stack)-1]
			continue
		}
		m, _ := f.kids.Next()
		v := m.Value
		self := add(v, f.self, f.kid, m.KeyStart, m.KeyEnd)
		f.kid++
		if v.Kind() == jsontext.Array || v.Kind() == jsontext.Object {
			stack = append(stack, frame{kids: v.Cursor(), self: self})
		}
	}
	return d
}

// raw returns the bytes of node i.
func (d *doc) raw(i int) []byte { n := &d.nodes[i]; return d.src[n.start:n.end] }

// key returns the decoded key of node i ("" for array elements).
func (d *doc) key(i int) string {
	n := &d.nodes[i]
	if n.keyStart < 0 {
		return ""
	}
	s, err := jsontext.RawString(d.src[n.keyStart:n.keyEnd])
	if err != nil {
		return string(d.src[n.keyStart+1 : n.keyEnd-1])
	}
	return s
}

// pathElem is one step of a path: an object key or an array index.
type pathElem struct {
	key   string
	index int
	isIdx bool
}

// path returns the elements leading from the root to node i.
func (d *doc) path(i int) []pathElem {
	var rev []pathElem
	for j := i; j > 0 && d.nodes[j].parent >= 0; j = int(d.nodes[j].parent) {
		n := &d.nodes[j]
		if d.nodes[n.parent].kind == jsontext.Array {
			rev = append(rev, pathElem{index: int(n.idx), isIdx: true})
		} else {
			rev = append(rev, pathElem{key: d.key(j)})
		}
	}
	for a, b := 0, len(rev)-1; a < b; a, b = a+1, b-1 {
		rev[a], rev[b] = rev[b], rev[a]
	}
	return rev
}

// find returns the node at path, or -1.
func (d *doc) find(path []pathElem) int {
	if len(d.nodes) == 0 {
		return -1
	}
	cur := 0
	for _, e := range path {
		n := &d.nodes[cur]
		if !n.container() || n.nkids == 0 {
			return -1
		}
		if e.isIdx != (n.kind == jsontext.Array) {
			return -1
		}
		found := -1
		for c := cur + 1; c < int(n.next); c = int(d.nodes[c].next) {
			if e.isIdx && int(d.nodes[c].idx) == e.index || !e.isIdx && d.key(c) == e.key {
				found = c
				if e.isIdx {
					break
				}
				// objects: the last duplicate wins, as in the engine
			}
		}
		if found < 0 {
			return -1
		}
		cur = found
	}
	return cur
}
