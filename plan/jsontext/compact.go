package jsontext

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// AppendCompact appends valid JSON without insignificant whitespace, in one
// pass and without re-encoding: numbers and strings keep their exact text.
func AppendCompact(dst, raw []byte) []byte {
	// Room for all of the text is made once; each byte outside the strings
	// is written and kept unless it is whitespace, with no branch on it.
	n := len(dst)
	dst = slices.Grow(dst, len(raw))[:n+len(raw)]
	out, k := dst[n:], 0
	for i := 0; i < len(raw); {
		if c := raw[i]; c != '"' {
			out[k] = c
			k += 1 - int(compactDrops[c])
			i++
			continue
		}
		// Strings are most of the text: SkipString passes them eight bytes
		// at a time (and past the end of one cut short in an escape).
		end := min(SkipString(raw, i), len(raw))
		k += copy(out[k:], raw[i:end])
		i = end
	}
	return dst[:n+k]
}

// compactDrops is 1 for the bytes AppendCompact drops outside strings:
// JSON's whitespace.
var compactDrops = [256]uint8{' ': 1, '\t': 1, '\n': 1, '\r': 1}

// AppendJSONString appends s as a JSON string, escaping only what JSON
// requires (no HTML escaping: the output is data, not a web page): the
// quote, the backslash, and the C0 controls (\n, \r, \t, else \u00XX);
// every other byte is copied, but a lone surrogate kept as WTF-8
// (SurrogateAt), which is written as its escape (\ud800). \b and \f are
// \u0008 and \u000c, as encoding/json wrote them before Go 1.22 and
// planctl's first escaper copied: the value is the same, and what planctl
// writes (traces, a run's answer, the TUI's paths) keeps its bytes; the
// MCP server's wire rewrites them as the SDK writes them.
func AppendJSONString(dst []byte, s string) []byte { return appendString(dst, s, &plainForm) }

// AppendPydanticString appends s as pydantic-core's to_json writes a
// Python str, which is what the MCP Python SDK sends: AppendJSONString's
// bytes but for \b and \f, written in their short form.
func AppendPydanticString(dst []byte, s string) []byte {
	return appendString(dst, s, &pydanticForm)
}

// AppendMarshalString appends s exactly as encoding/json's Marshal writes
// a string: HTML escaping on (<, >, & as \u003c, \u003e, \u0026), \b
// and \f in their short form, U+2028 and U+2029 escaped, and each byte
// that is not UTF-8 as \ufffd. It is for bytes that must be the ones a
// library encoding with encoding/json (mcp-go) would send.
func AppendMarshalString(dst []byte, s string) []byte {
	return appendString(dst, s, &marshalForm)
}

// stringForm is one way to write a string as JSON. One byte lookup
// decides the common byte, so each form costs what a plain copy costs.
type stringForm struct {
	copy  [256]bool // bytes written as they are
	short [256]byte // a byte's short escape (n for \n), 0 for \u00XX
	// marshal: encoding/json's rules past ASCII. Otherwise every byte
	// past ASCII is copied, 0xed aside (perhaps a surrogate kept as WTF-8).
	marshal bool
}

// shortEscapes are JSON's two-character escapes.
var shortEscapes = [256]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

var plainForm, pydanticForm, marshalForm = func() (plain, pydantic, marshal stringForm) {
	for c := 0x20; c < 256; c++ {
		plain.copy[c] = c != '"' && c != '\\' && c != 0xed
		marshal.copy[c] = plain.copy[c] && c != '<' && c != '>' && c != '&' && c < utf8.RuneSelf
	}
	pydantic.copy = plain.copy
	pydantic.short, marshal.short, plain.short = shortEscapes, shortEscapes, shortEscapes
	plain.short['\b'], plain.short['\f'] = 0, 0
	marshal.marshal = true
	return plain, pydantic, marshal
}()

func appendString(dst []byte, s string, f *stringForm) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if f.copy[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf && !f.marshal { // 0xed only
			if r, ok := SurrogateAt(s, i); ok {
				dst = appendU(append(dst, s[start:i]...), r)
				i += 3
				start = i
				continue
			}
			i++
			continue
		}
		if c >= utf8.RuneSelf { // marshal: encoding/json's rules
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				dst = append(append(dst, s[start:i]...), `\ufffd`...)
			case r == '\u2028' || r == '\u2029':
				dst = appendU(append(dst, s[start:i]...), r)
			default:
				i += n
				continue
			}
			i += n
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		if e := f.short[c]; e != 0 {
			dst = append(dst, '\\', e)
		} else {
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
		i++
		start = i
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
func SurrogateAt[T string | []byte](s T, i int) (rune, bool) {
	if i+2 >= len(s) || s[i] != 0xed || s[i+1] < 0xa0 || s[i+1] > 0xbf || s[i+2] < 0x80 || s[i+2] > 0xbf {
		return 0, false
	}
	return rune(s[i]&0x0f)<<12 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f), true
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
