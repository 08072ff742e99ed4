package jsontext

import (
	"errors"
	"fmt"
)

// Replaced is a document made from another by parsing again only one of
// its containers (Replace): the new root, and the map from the old
// document's Values to the new one's.
type Replaced struct {
	Root  Value   // the new document's root
	Value Value   // the new value in place of the old container
	Dups  []Value // the objects of the new value that repeat a key

	old        *document
	first, end uint32 // the old container's nodes: [first, end)
	nodeDelta  int64
}

// Map is old's counterpart in the new document: the same value, where it
// now is. A value inside the replaced container has none (the zero
// Value), nor has a value of another document.
func (r *Replaced) Map(old Value) Value {
	switch {
	case old.d != r.old:
		return Value{}
	case old.i < r.first:
		return Value{r.Root.d, old.i}
	case old.i < r.end:
		return Value{}
	}
	return Value{r.Root.d, uint32(int64(old.i) + r.nodeDelta)}
}

// ErrNotReplaced is Replace's error when the new text of the container is
// not one JSON value of the same kind: the caller parses the whole
// document again (its error is the one to show).
var ErrNotReplaced = errors.New("the container's new text is not one value of its kind")

// Replace parses src, the text of old's document with old's span
// [old.Start(), old.End()) replaced by src[old.Start():newEnd], by parsing
// only that span again. When the new text has as many values as the old
// (a keystroke in a string or a number), the tape's chunks after the
// container's are shared with old's, their offsets moved by a shift of
// the chunk; otherwise the tape after it is copied, its offsets moved.
// old must be an array or an object (the new text too, of the same kind),
// and no container around it may repeat a key. It is the whole parse's
// result at the cost of the span's parse and of the chunks it is in (or
// of the tape after it).
func Replace(old Value, src []byte, newEnd int) (*Replaced, error) {
	if old.d == nil || (old.Kind() != Array && old.Kind() != Object) {
		return nil, fmt.Errorf("replace: %w", ErrNotReplaced)
	}
	if len(src) > maxSource {
		return nil, fmt.Errorf("replace: %w", ErrNotReplaced)
	}
	od := old.d
	on := od.node(old.i)
	start := int(on.start)
	if newEnd < start || newEnd > len(src) {
		return nil, fmt.Errorf("replace: the new span [%d, %d) is not in the text", start, newEnd)
	}
	sub, dups, err := ParseWithDuplicates(src[start:newEnd])
	if err != nil || sub.Kind() != old.Kind() {
		return nil, ErrNotReplaced
	}
	if sub.Start() != 0 || sub.End() != newEnd-start {
		return nil, ErrNotReplaced // space around the value: the span is the value's
	}
	sd := sub.d
	first, end := old.i, on.next
	delta := int64(newEnd) - int64(on.end)
	nodeDelta := int64(sd.n) - int64(end-first)
	total := int64(od.n) + nodeDelta
	if total > int64(^uint32(0)) {
		return nil, ErrNotReplaced
	}
	nd := &document{src: src, n: uint32(total)}
	// The chunks before the one the container begins in are shared when
	// no node of theirs encloses it (nodes never change once parsed); those
	// that do (the first: the root, the steps array) are copied and mended.
	firstChunk := int(first >> chunkBits)
	nd.chunks = make([][]node, 0, int(total>>chunkBits)+1)
	shift := make([]int64, 0, cap(nd.chunks))
	anc := od.ancestors(first)
	for c := 0; c < firstChunk; c++ {
		ch := od.chunks[c]
		copied := false
		for len(anc) > 0 && int(anc[0]>>chunkBits) == c {
			if !copied {
				ch, copied = append([]node(nil), ch...), true
			}
			n := &ch[anc[0]&(chunkSize-1)]
			n.end = uint32(int64(n.end) + delta)
			n.next = uint32(int64(n.next) + nodeDelta)
			anc = anc[1:]
		}
		nd.chunks = append(nd.chunks, ch)
		shift = append(shift, od.shiftOf(c))
	}
	if nodeDelta == 0 {
		// The tape keeps its layout: the chunks the container's nodes are
		// in are made again, and those after them are shared, their shift
		// moved, rather than copied to move each node.
		lastChunk := int((end - 1) >> chunkBits)
		for c := firstChunk; c <= lastChunk; c++ {
			lo := uint32(c) << chunkBits
			ch := make([]node, min(len(od.chunks[c]), int(od.n-lo)))
			for k := range ch {
				i := lo + uint32(k)
				var n node
				switch {
				case i < first:
					n = od.node(i)
					if n.next > first { // encloses the container
						n.end = uint32(int64(n.end) + delta)
					}
				case i < end:
					n = sd.node(i - first)
					n.start += uint32(start)
					n.end += uint32(start)
					n.next += first
				default:
					n = od.node(i)
					n.start = uint32(int64(n.start) + delta)
					n.end = uint32(int64(n.end) + delta)
				}
				ch[k] = n
			}
			nd.chunks = append(nd.chunks, ch)
			shift = append(shift, 0)
		}
		for c := lastChunk + 1; c < len(od.chunks); c++ {
			nd.chunks = append(nd.chunks, od.chunks[c])
			shift = append(shift, od.shiftOf(c)+delta)
		}
	} else {
		replaceMoving(nd, od, sd, first, end, start, delta, nodeDelta, total)
		shift = append(shift, make([]int64, len(nd.chunks)-len(shift))...)
	}
	for _, sh := range shift {
		if sh != 0 {
			nd.shift = shift
			break
		}
	}
	for _, e := range od.esc {
		switch {
		case e.node < first:
			nd.esc = append(nd.esc, e)
		case e.node >= end:
			continue
		}
	}
	for _, e := range sd.esc {
		nd.esc = append(nd.esc, escText{e.node + first, e.text})
	}
	for _, e := range od.esc {
		if e.node >= end {
			nd.esc = append(nd.esc, escText{uint32(int64(e.node) + nodeDelta), e.text})
		}
	}
	r := &Replaced{Root: Value{nd, 0}, Value: Value{nd, first}, old: od, first: first, end: end, nodeDelta: nodeDelta}
	for _, dv := range dups {
		r.Dups = append(r.Dups, Value{nd, dv.i + first})
	}
	return r, nil
}

// ancestors is the indexes of the containers that enclose node x, from
// the root down: a walk down the tree, over the subtrees before x at each
// level, rather than a scan of every node before x.
func (d *document) ancestors(x uint32) []uint32 {
	var out []uint32
	for i := uint32(0); i != x; {
		out = append(out, i)
		j := i + 1
		for d.raw(j).next <= x {
			j = d.raw(j).next
		}
		i = j
	}
	return out
}

// replaceMoving is Replace's tape from the container's chunk on when the
// number of nodes changed: every later node is copied, its index and
// offsets moved.
func replaceMoving(nd, od, sd *document, first, end uint32, start int, delta, nodeDelta, total int64) {
	var cur []node
	push := func(n node) {
		if len(cur) == chunkSize {
			nd.chunks = append(nd.chunks, cur)
			cur = nil
		}
		if cur == nil {
			cur = make([]node, 0, min(chunkSize, int(total)-len(nd.chunks)<<chunkBits))
		}
		cur = append(cur, n)
	}
	for i := first >> chunkBits << chunkBits; i < first; i++ {
		n := od.node(i)
		if n.next > first { // encloses the container
			n.end = uint32(int64(n.end) + delta)
			n.next = uint32(int64(n.next) + nodeDelta)
		}
		push(n)
	}
	for i := uint32(0); i < sd.n; i++ {
		n := sd.node(i)
		n.start += uint32(start)
		n.end += uint32(start)
		n.next += first
		push(n)
	}
	// The nodes after it, a run of the old tape at a time.
	for i := end; i < od.n; {
		delta := delta + od.shiftOf(int(i>>chunkBits))
		src := od.chunks[i>>chunkBits][i&(chunkSize-1):]
		src = src[:min(len(src), int(od.n-i))]
		for len(src) > 0 {
			if cur == nil || len(cur) == chunkSize {
				if cur != nil {
					nd.chunks = append(nd.chunks, cur)
				}
				cur = make([]node, 0, min(chunkSize, int(total)-len(nd.chunks)<<chunkBits))
			}
			m := min(len(src), chunkSize-len(cur))
			k0 := len(cur)
			cur = append(cur, src[:m]...)
			for k := k0; k < len(cur); k++ {
				n := &cur[k]
				n.start = uint32(int64(n.start) + delta)
				n.end = uint32(int64(n.end) + delta)
				n.next = uint32(int64(n.next) + nodeDelta)
			}
			src = src[m:]
			i += uint32(m)
		}
	}
	if cur != nil {
		nd.chunks = append(nd.chunks, cur)
	}
}
