package jsontext

import "unicode/utf8"

// AppendCompact appends valid JSON without insignificant whitespace, in one
// pass and without re-encoding: numbers and strings keep their exact text.
func AppendCompact(dst, raw []byte) []byte {
	inString := false
	start := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ' ', '\t', '\n', '\r':
			dst = append(dst, raw[start:i]...)
			start = i + 1
		}
	}
	return append(dst, raw[start:]...)
}

// AppendJSONString appends s as a JSON string, escaping only what JSON
// requires (no HTML escaping: the output is data, not a web page): the
// quote, the backslash, and the C0 controls (\n, \r, \t, else \u00XX);
// every other byte is copied.
func AppendJSONString(dst []byte, s string) []byte { return appendString(dst, s, &plainSafe, false) }

// AppendMarshalString appends s exactly as encoding/json's Marshal writes
// a string: HTML escaping on (<, >, & as \u003c, \u003e, \u0026), \b
// and \f in their short form, U+2028 and U+2029 escaped, and each byte
// that is not UTF-8 as \ufffd. It is for bytes that must be the ones a
// library encoding with encoding/json (mcp-go) would send.
func AppendMarshalString(dst []byte, s string) []byte {
	return appendString(dst, s, &marshalSafe, true)
}

// plainSafe and marshalSafe are the bytes each form copies as they are;
// the one lookup keeps the common byte as cheap as a plain copy.
var plainSafe, marshalSafe = func() (plain, marshal [256]bool) {
	for c := 0x20; c < 256; c++ {
		plain[c] = c != '"' && c != '\\'
		marshal[c] = plain[c] && c != '<' && c != '>' && c != '&' && c < utf8.RuneSelf
	}
	return plain, marshal
}()

func appendString(dst []byte, s string, safe *[256]bool, marshal bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if safe[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf { // marshal only: plainSafe copies every such byte
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				dst = append(append(dst, s[start:i]...), `\ufffd`...)
			case r == '\u2028' || r == '\u2029':
				dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&15])
			default:
				i += n
				continue
			}
			i += n
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\b' && marshal:
			dst = append(dst, '\\', 'b')
		case c == '\f' && marshal:
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
