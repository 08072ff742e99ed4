package jsontext

import "io"

// Indent pretty-prints valid JSON with two-space indentation, as
// json.Indent does, in one pass: number literals and strings keep their
// exact text. The engine's responses are large; this is their hot path.
func Indent(src []byte) []byte {
	dst, _ := indent(make([]byte, 0, len(src)+len(src)/2), src, 0, nil)
	return dst
}

// AppendIndent appends src indented as Indent does to dst.
func AppendIndent(dst, src []byte) []byte {
	dst, _ = indent(dst, src, 0, nil)
	return dst
}

// AppendIndentAt appends src indented as Indent does to dst, as a value
// nested depth levels deep: every line after the first is indented by
// depth more levels (a result inside a response).
func AppendIndentAt(dst, src []byte, depth int) []byte {
	dst, _ = indent(dst, src, depth, nil)
	return dst
}

// WriteIndent writes src indented as Indent does to w, a chunk at a time,
// so that a large response is never held twice in memory.
func WriteIndent(w io.Writer, src []byte) error {
	const chunk = 64 << 10
	buf := make([]byte, 0, chunk+chunk/4)
	buf, err := indent(buf, src, 0, func(b []byte) ([]byte, error) {
		if len(b) < chunk {
			return b, nil
		}
		_, err := w.Write(b)
		return b[:0], err
	})
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// indentSpaces is a line's indentation up to 32 levels, appended as one
// run rather than two bytes a level.
const indentSpaces = "                                                                "

// indent appends the indented src to dst, its lines indented by base
// levels more; flush, when given, is offered dst after every value and may
// empty it.
func indent(dst, src []byte, base int, flush func([]byte) ([]byte, error)) ([]byte, error) {
	depth := base
	newline := func() {
		dst = append(dst, '\n')
		n := 2 * depth
		for n > len(indentSpaces) {
			dst = append(dst, indentSpaces...)
			n -= len(indentSpaces)
		}
		dst = append(dst, indentSpaces[:n]...)
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			end := SkipString(src, i)
			dst = append(dst, src[i:end]...)
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
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, ',')
			newline()
			if flush != nil {
				var err error
				if dst, err = flush(dst); err != nil {
					return dst, err
				}
			}
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst, nil
}
