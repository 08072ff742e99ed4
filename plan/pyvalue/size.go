package pyvalue

import (
	"unicode/utf8"

	"github.com/planctl/planctl/plan/jsontext"
)

// Sizes is what a JSON value takes, counted without writing it, written
// at an indentation depth of json.dumps(indent=2)'s text:
//   - Text, that text as DumpsIndent writes it;
//   - Escaped, that text as encoding/json writes it in a JSON string, HTML
//     escaping on (quotes, backslashes and line breaks two bytes, <, > and
//     & six; the text is ASCII), the string's own quotes not counted: an
//     MCP answer's text, as Concierge's answers and planctl's hold it;
//   - Compact, the value as encoding/json writes a json.RawMessage: compact,
//     with <, >, &, U+2028 and U+2029 six bytes (structuredContent).
//
// They are exact for a value as Values writes it (numbers as Python writes
// them, no key repeated); for any other valid JSON they do not count less
// than the bytes written, and text that is not JSON gets a count, never a
// failure. Counting costs one pass over raw, with nothing allocated.
type Sizes struct{ Text, Escaped, Compact int64 }

func (c *Sizes) add(text, escaped, compact int64) {
	c.Text += text
	c.Escaped += escaped
	c.Compact += compact
}

// SizesOf counts raw written at depth (0: the top level).
func SizesOf(raw []byte, depth int) (c Sizes) {
	// A line break then two spaces a level: "\n" is two bytes escaped.
	nl := func(d int) (text, escaped int64) { return 1 + 2*int64(d), 2 + 2*int64(d) }
	for i := 0; i < len(raw); {
		switch b := raw[i]; b {
		case ' ', '\t', '\n', '\r':
			i++
		case '[', '{':
			if j := jsontext.SkipSpace(raw, i+1); j < len(raw) && (raw[j] == ']' || raw[j] == '}') {
				c.add(2, 2, 2) // [] and {} stay on their line
				i = j + 1
				continue
			}
			depth++
			p, t := nl(depth)
			c.add(1+p, 1+t, 1)
			i++
		case ']', '}':
			depth--
			p, t := nl(depth)
			c.add(p+1, t+1, 1)
			i++
		case ',':
			p, t := nl(depth)
			c.add(1+p, 1+t, 1)
			i++
		case ':':
			c.add(2, 2, 1) // ": " in the text
			i++
		case '"':
			end := min(jsontext.SkipString(raw, i), len(raw)) // cut short: counted to the end
			s := stringSizes(raw[i:end])
			c.add(s.Text, s.Escaped, s.Compact)
			i = end
		default: // a number, true, false or null: the same in every form
			j := i
			for j < len(raw) && !isJSONDelim(raw[j]) {
				j++
			}
			if j == i {
				j++ // not JSON: counted a byte at a time, never looped on
			}
			n := int64(j - i)
			c.add(n, n, n)
			i = j
		}
	}
	return c
}

func isJSONDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '[', ']', '{', '}', '"':
		return true
	}
	return false
}

// stringSizes is SizesOf one string token, quotes included. The text
// counts each character as json.dumps(ensure_ascii=True) writes it; the
// compact form keeps the token's bytes and escapes as they are, HTML
// characters aside.
func stringSizes(tok []byte) (c Sizes) {
	c = Sizes{Text: 2, Escaped: 4, Compact: int64(len(tok))} // each quote is \" once escaped
	s := tok[1:]
	if len(s) > 0 && s[len(s)-1] == '"' {
		s = s[:len(s)-1] // not when the token is cut short
	}
	char := func(r rune) {
		t, e := runeSizes(r)
		c.Text += t
		c.Escaped += e
	}
	for i := 0; i < len(s); {
		b := s[i]
		switch {
		case b == '\\' && i+1 < len(s):
			if s[i+1] != 'u' || i+6 > len(s) {
				char(rune(unescaped(s[i+1])))
				i += 2
				continue
			}
			r := rune(hex4(s[i+2 : i+6]))
			i += 6
			if r >= 0xd800 && r < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if lo := rune(hex4(s[i+2 : i+6])); lo >= 0xdc00 && lo < 0xe000 {
					r, i = 0x10000, i+6 // a surrogate pair: one character beyond the BMP
				}
			}
			char(r) // structuredContent keeps the escape as it is
		case b < utf8.RuneSelf:
			if b == '<' || b == '>' || b == '&' {
				c.Compact += 5
			}
			char(rune(b))
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == '\u2028' || r == '\u2029' {
				c.Compact += 3 // three bytes of UTF-8 written as \u2028
			}
			char(r)
			i += n
		}
	}
	return c
}

// runeSizes is the bytes one character of a string takes in the text
// (json.dumps's escape of it) and once that is escaped.
func runeSizes(r rune) (text, escaped int64) {
	switch {
	case r == '"' || r == '\\':
		return 2, 4 // \" is \\\" in the answer
	case r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
		return 2, 3 // \n is \\n
	case r == '<' || r == '>' || r == '&':
		return 1, 6 // \u003c
	case r >= 0x20 && r < 0x7f:
		return 1, 1
	case r >= 0x10000:
		return 12, 14 // two \uXXXX, each \\uXXXX
	}
	return 6, 7 // \uXXXX is \\uXXXX
}

// unescaped is the character a two-byte escape stands for.
func unescaped(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // " \ /
}

func hex4(h []byte) int {
	n := 0
	for _, c := range h {
		n <<= 4
		switch {
		case c >= '0' && c <= '9':
			n |= int(c - '0')
		case c >= 'a' && c <= 'f':
			n |= int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			n |= int(c-'A') + 10
		}
	}
	return n
}
