package jsontext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
)

// The raw walkers below read JSON that is known to be valid (results are
// checked when they arrive), so they only find boundaries.

// FirstByte is the first byte of b, 0 when b is empty: after TrimSpace,
// it tells a value's kind ('{', '[', '"'...).
func FirstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// TrimSpace returns b without the JSON whitespace around it (space, tab,
// newline, carriage return: not Unicode's wider class).
func TrimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the offset of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// SkipValue returns the offset just past the value starting at b[i]; b must
// be valid JSON there.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = SkipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

// SkipNumber returns the offset just past the number starting at b[i], as
// SkipValue does, and whether it is an integer (an optional minus and
// digits, no fraction or exponent): an integer's digits are its end, read
// once; a number that goes on past them ends where SkipValue says.
func SkipNumber(b []byte, i int) (end int, integer bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return SkipValue(b, i), false
	}
	return j, true
}

// SkipString returns the offset just past the string token starting at b[i].
func SkipString(b []byte, i int) int {
	end, _ := SkipStringEscaped(b, i)
	return end
}

// SkipStringEscaped is SkipString, and reports whether the string holds an
// escape (a backslash): a reader that must treat such a string apart learns
// it in the same pass.
func SkipStringEscaped(b []byte, i int) (end int, escaped bool) {
	i++
	for i < len(b) {
		i = quoteOrBackslash(b, i)
		if i == len(b) {
			return i, escaped
		}
		if b[i] == '"' {
			return i + 1, escaped
		}
		escaped = true
		i += 2
	}
	return i, escaped
}

const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	quotes = '"' * ones
	slashs = '\\' * ones
	spaces = ' ' * ones
)

// quoteOrBackslash is the offset of the first '"' or '\\' in b at or after
// i, len(b) when there is none. Every walker over raw JSON passes strings
// through SkipString, so it reads eight bytes at a time: a word holds one
// of the two when w^quotes or w^slashs has a zero byte, and the lowest
// bit of the usual zero-byte mask is exact (a false bit can only follow a
// true zero, in a later byte).
func quoteOrBackslash(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		q, s := w^quotes, w^slashs
		if m := ((q-ones)&^q | (s-ones)&^s) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

func rawElems(b []byte) [][]byte {
	var out [][]byte
	i := SkipSpace(b, 1)
	if i < len(b) && b[i] == ']' {
		return out
	}
	for i < len(b) {
		i = SkipSpace(b, i)
		end := SkipValue(b, i)
		out = append(out, b[i:end])
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i++
	}
	return out
}

// RawFirstMember is RawMember for an object known to repeat no key (a
// value pyvalue.ValuesUnique vouched for): it stops at the key, without
// reading the rest of the object for a later copy of it.
func RawFirstMember(raw []byte, key string) ([]byte, bool) {
	raw = TrimSpace(raw)
	if FirstByte(raw) != '{' {
		return nil, false
	}
	return rawMember(raw, key, true)
}

// rawMember finds key in a raw object: its first value when first is
// set, else its last, as json.loads keeps it.
func rawMember(b []byte, key string, first bool) ([]byte, bool) {
	var found []byte
	ok := false
	i := SkipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		ks := i
		i = SkipString(b, i)
		match := keyEquals(b[ks:i], key)
		i = SkipSpace(b, i)
		i = SkipSpace(b, i+1) // ':'
		end := SkipValue(b, i)
		if match {
			found, ok = b[i:end], true
			if first {
				break
			}
		}
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i = SkipSpace(b, i+1)
	}
	return found, ok
}

// keyEquals compares a raw JSON string token (with quotes) to key.
func keyEquals(tok []byte, key string) bool {
	body := tok[1 : len(tok)-1]
	// A body with an escape is compared decoded, even when its raw text
	// equals key: the key "a\\u0062c" (with a backslash) is not the
	// result's key "a\u0062c", which is "abc".
	if bytes.IndexByte(body, '\\') >= 0 {
		s, err := decodeString(tok)
		return err == nil && s == key
	}
	return string(body) == key
}

func decodeString(tok []byte) (string, error) {
	p := parser{src: tok}
	s, _, err := p.string()
	return s, err
}

// RawMember returns the value of key in a raw JSON object (the last one when
// the key repeats, as json.loads keeps it), without parsing the rest. raw
// must be valid JSON.
func RawMember(raw []byte, key string) ([]byte, bool) {
	raw = TrimSpace(raw)
	if FirstByte(raw) != '{' {
		return nil, false
	}
	return rawMember(raw, key, false)
}

// RawElems splits a raw JSON array into its elements. raw must be valid JSON.
func RawElems(raw []byte) ([][]byte, bool) {
	raw = TrimSpace(raw)
	if FirstByte(raw) != '[' {
		return nil, false
	}
	return rawElems(raw), true
}

// RawString decodes a raw JSON string token, quotes included.
func RawString(tok []byte) (string, error) {
	tok = TrimSpace(tok)
	if FirstByte(tok) != '"' {
		return "", fmt.Errorf("not a JSON string")
	}
	return decodeString(tok)
}

// Depth is how deep the JSON text b nests arrays and objects. It scans
// the bytes once and validates nothing else.
func Depth(b []byte) int {
	depth, max := 0, 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
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
		case '[', '{':
			depth++
			if depth > max {
				max = depth
			}
		case ']', '}':
			depth--
		}
	}
	return max
}
