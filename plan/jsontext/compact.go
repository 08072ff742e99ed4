package jsontext

import "strings"

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
// requires (no HTML escaping: the output is data, not a web page).
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0xed {
			continue
		}
		if c == 0xed {
			r, ok := SurrogateAt(s, i)
			if !ok {
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendU4(dst, r)
			i += 2
			start = i + 1
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// A JSON string may hold a lone surrogate escape ("\ud800"): Python's str
// keeps it as a code point of its own, so two strings that differ only
// there are two different step ids or keys. The parser keeps it the same
// way, as the three bytes UTF-8 would give the code point (WTF-8), which
// no valid UTF-8 text holds; the encoders write it back as its escape.

// AppendSurrogate appends the surrogate code point r as WTF-8.
func AppendSurrogate(dst []byte, r rune) []byte {
	return append(dst, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
}

// SurrogateAt reports whether s holds, at byte i, a surrogate code point
// kept as WTF-8 (AppendSurrogate), and which.
func SurrogateAt(s string, i int) (rune, bool) {
	if i+2 >= len(s) || s[i] != 0xed || s[i+1] < 0xa0 || s[i+1] > 0xbf || s[i+2] < 0x80 || s[i+2] > 0xbf {
		return 0, false
	}
	return rune(s[i]&0x0f)<<12 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f), true
}

func appendU4(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
}

// ValidUTF8 returns s with each surrogate kept as WTF-8 replaced by U+FFFD,
// as encoding/json decodes a lone surrogate escape.
func ValidUTF8(s string) string {
	if !strings.Contains(s, "\xed") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if _, ok := SurrogateAt(s, i); ok {
			b.WriteString("\uFFFD")
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
