package jsontext

import "slices"

// AppendPlain appends v without its whitespace when v is written as a
// value's plain text: no string of it (key or value) holds an escape, no
// object of it repeats a key, no null of it was written as a literal (NaN,
// Infinity, 1e400), and number says each of its number literals is fine.
// It writes AppendCompact's bytes, from v's nodes on the tape (each key,
// string and number copied from its span, the punctuation between them
// written anew), in the one pass that reads the flags the parse set; at
// the first node that is not plain it stops, and ok is false with dst as
// it was.
func AppendPlain(dst []byte, v Value, number func(lit string) bool) (_ []byte, ok bool) {
	if v.d == nil {
		return dst, true
	}
	type open struct {
		next  uint32 // the node after the container's subtree
		close byte   // ']' or '}'
		n     int    // nodes written at its level: an object's keys and values both count
	}
	var buf [32]open
	stack := buf[:0]
	d := v.d
	n0 := len(dst)
	dst = slices.Grow(dst, v.End()-v.Start()) // its text is as long at least: one allocation, not a doubling
	for i, end := v.i, d.raw(v.i).next; i < end; {
		for len(stack) > 0 && stack[len(stack)-1].next == i {
			dst = append(dst, stack[len(stack)-1].close)
			stack = stack[:len(stack)-1]
		}
		key := false
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.close == ']' {
				if top.n > 0 {
					dst = append(dst, ',')
				}
			} else if key = top.n%2 == 0; key && top.n > 0 {
				dst = append(dst, ',')
			}
			top.n++
		}
		nd := d.raw(i)
		if nd.flags&(flagEscaped|flagDupKeys|flagLiteral) != 0 || (nd.kind == Number && !number(d.text(i))) {
			return dst[:n0], false // (each flag is set on one kind of node only)
		}
		switch nd.kind {
		case Object:
			dst = append(dst, '{')
			stack = append(stack, open{next: nd.next, close: '}'})
		case Array:
			dst = append(dst, '[')
			stack = append(stack, open{next: nd.next, close: ']'})
		default:
			sh := d.shiftAt(i)
			dst = append(dst, d.src[int(nd.start)+sh:int(nd.end)+sh]...)
			if key {
				dst = append(dst, ':')
			}
		}
		i++
	}
	for len(stack) > 0 {
		dst = append(dst, stack[len(stack)-1].close)
		stack = stack[:len(stack)-1]
	}
	return dst, true
}
