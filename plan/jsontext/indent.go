package jsontext

import (
	"fmt"
	"io"
	"strconv"
)

// Indent pretty-prints valid JSON with two-space indentation, as
// json.Indent does, in one pass: number literals and strings keep their
// exact text. The engine's responses are large; this is their hot path.
func Indent(src []byte) []byte {
	dst, _ := indent(make([]byte, 0, len(src)+len(src)/2), src, 0, nil, nil)
	return dst
}

// AppendIndent appends src indented as Indent does to dst.
func AppendIndent(dst, src []byte) []byte {
	dst, _ = indent(dst, src, 0, nil, nil)
	return dst
}

// AppendIndentAt appends src indented as Indent does to dst, as a value
// nested depth levels deep: every line after the first is indented by
// depth more levels (a result inside a response).
func AppendIndentAt(dst, src []byte, depth int) []byte {
	dst, _ = indent(dst, src, depth, nil, nil)
	return dst
}

// WriteIndent writes src indented as Indent does to w, a chunk at a time,
// so that a large response is never held twice in memory.
func WriteIndent(w io.Writer, src []byte) error {
	return WriteIndentAt(w, src, 0)
}

// WriteIndentAt is WriteIndent of src nested depth levels deep, as
// AppendIndentAt writes it: a large result inside a response is written a
// chunk at a time without a second pass to indent its lines.
func WriteIndentAt(w io.Writer, src []byte, depth int) error {
	const chunk = 64 << 10
	buf := make([]byte, 0, chunk+chunk/4)
	buf, err := indent(buf, src, depth, func(b []byte) ([]byte, error) {
		if len(b) < chunk {
			return b, nil
		}
		_, err := w.Write(b)
		return b[:0], err
	}, nil)
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// Bounds say how AppendBounded writes a value for people to read, as
// delve's max-array-values and max-string-len do: a 5,000-item result
// written whole pushes everything else off the screen. 0 is no bound.
type Bounds struct {
	MaxItems     int  // elements of an array, or members of an object
	MaxStringLen int  // characters of a string value (a key is never cut: it says where a value is)
	Compact      bool // on one line, as AppendCompact writes it
}

// AppendBounded appends src, valid JSON, to dst indented as AppendIndentAt
// writes it at depth (on one line when b.Compact), its keys and strings
// escaped to draw on a terminal (AppendDisplay), and cut to b with
// "… N more" where items were left out and " … N more characters" after
// a cut string. What is left out is only skipped over, never copied, so
// writing the start of a large result costs a scan of the rest.
func AppendBounded(dst, src []byte, depth int, b Bounds) []byte {
	dst, _ = indent(dst, src, depth, nil, &bounded{Bounds: b})
	return dst
}

// bounded is AppendBounded's state in indent: one pointer, nil for Indent,
// so the unbounded walk keeps its registers.
type bounded struct {
	Bounds
	items []int // with MaxItems: the items begun in each open container
}

// indentSpaces is a line's indentation up to 32 levels, appended as one
// run rather than two bytes a level.
const indentSpaces = "                                                                "

// indent appends the indented src to dst, its lines indented by base
// levels more; flush, when given, is offered dst after every value and may
// empty it; b, when given, bounds and escapes what it writes.
func indent(dst, src []byte, base int, flush func([]byte) ([]byte, error), b *bounded) ([]byte, error) {
	depth := base
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			// SkipString steps past the end of a string cut short in an
			// escape: it is kept as it is, and no byte past src is read.
			end := min(SkipString(src, i), len(src))
			if b == nil {
				dst = append(dst, src[i:end]...)
			} else {
				dst = b.appendString(dst, src, i, end)
			}
			i = end - 1
		case '{', '[':
			dst = append(dst, c)
			j := SkipSpace(src, i+1)
			if j < len(src) && (src[j] == '}' || src[j] == ']') {
				dst = append(dst, src[j])
				i = j
				continue
			}
			depth++
			if b != nil {
				b.items = append(b.items, 1)
			}
			if b == nil || !b.Compact {
				dst = newline(dst, depth)
			}
		case '}', ']':
			depth--
			if b != nil && len(b.items) > 0 {
				b.items = b.items[:len(b.items)-1]
			}
			if b == nil || !b.Compact {
				dst = newline(dst, depth)
			}
			dst = append(dst, c)
		case ',':
			dst = append(dst, ',')
			if b == nil || !b.Compact {
				dst = newline(dst, depth)
			}
			if b != nil && b.full() {
				var left int
				i, left = skipItems(src, i)
				dst = fmt.Appendf(dst, "… %d more", left)
				continue
			}
			if flush != nil {
				var err error
				if dst, err = flush(dst); err != nil {
					return dst, err
				}
			}
		case ':':
			dst = append(dst, ':')
			if b == nil || !b.Compact {
				dst = append(dst, ' ')
			}
		default:
			// A number or a literal: copied in one run up to the byte that
			// ends it, not a byte at a time through the switch.
			j := i + 1
			for j < len(src) && !indentStops[src[j]] {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j - 1
		}
	}
	return dst, nil
}

// indentStops are the bytes indent does more with than copy: whitespace,
// quotes and JSON's punctuation.
var indentStops = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '"': true,
	'{': true, '}': true, '[': true, ']': true, ',': true, ':': true}

// newline appends a line break and the indent of depth.
func newline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	n := 2 * max(depth, 0) // below 0 after a stray closing bracket
	for n > len(indentSpaces) {
		dst = append(dst, indentSpaces...)
		n -= len(indentSpaces)
	}
	return append(dst, indentSpaces[:n]...)
}

// full counts the item a ',' begins in the innermost open container, and
// reports whether it is past MaxItems (when the rest are left out).
func (b *bounded) full() bool {
	if b.MaxItems <= 0 || len(b.items) == 0 {
		return false // no bound, or text that is not JSON
	}
	n := &b.items[len(b.items)-1]
	if *n >= b.MaxItems {
		return true
	}
	*n++
	return false
}

// appendString appends the string token src[i:end] escaped to draw, cut
// to b.MaxStringLen when it is a value.
func (b *bounded) appendString(dst, src []byte, i, end int) []byte {
	tok, more := src[i:end], 0
	if b.MaxStringLen > 0 {
		if j := SkipSpace(src, end); j >= len(src) || src[j] != ':' {
			tok, more = CutString(tok, b.MaxStringLen)
		}
	}
	dst = AppendDisplay(dst, tok)
	if more > 0 {
		dst = append(append(dst, " … "...), MoreChars(more)...)
	}
	return dst
}

// MoreChars is "N more characters", for what a cut left out.
func MoreChars(n int) string {
	if n == 1 {
		return "1 more character"
	}
	return strconv.Itoa(n) + " more characters"
}

// skipItems skips the items of a container from the ',' at src[i] to its
// end, and returns the offset before its closing bracket and how many
// items it skipped.
func skipItems(src []byte, i int) (int, int) {
	n := 0
	for i < len(src) && src[i] == ',' {
		j := SkipSpace(src, i+1)
		if j < len(src) && src[j] == '"' {
			if k := SkipSpace(src, SkipString(src, j)); k < len(src) && src[k] == ':' {
				j = SkipSpace(src, k+1) // a member: its key, then its value
			}
		}
		i = SkipSpace(src, SkipValue(src, j))
		n++
	}
	return i - 1, n
}
