package jsontext

import "slices"

// Plain reports whether v is written as a value's plain text: no string
// of it (key or value) holds an escape, no object of it repeats a key, no
// null of it was written as a literal (NaN, Infinity, 1e400), and number
// says each of its number literals is fine. One pass over v's nodes on
// the tape, reading none of its text but its numbers'.
func (v Value) Plain(number func(lit string) bool) bool {
	if v.d == nil {
		return true
	}
	d := v.d
	for i, end := v.i, d.raw(v.i).next; i < end; i++ {
		nd := d.raw(i)
		if nd.flags&(flagEscaped|flagDupKeys|flagLiteral) != 0 {
			return false // (each flag is set on one kind of node only)
		}
		if nd.kind == Number && !number(d.text(i)) {
			return false
		}
	}
	return true
}

// AppendPlain appends v without its whitespace, for v that Plain vouched
// for (no escape, no repeated key, no literal null): AppendCompact's bytes,
// written from v's nodes on the tape (each key, string and number copied
// from its span, the punctuation between them written anew) rather than
// from a pass over every byte of v's text.
func AppendPlain(dst []byte, v Value) []byte {
	if v.d == nil {
		return dst
	}
	type open struct {
		next  uint32 // the node after the container's subtree
		close byte   // ']' or '}'
		n     int    // nodes written at its level: an object's keys and values both count
	}
	var buf [32]open
	stack := buf[:0]
	d := v.d
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
	return dst
}
