package jsontext

// The refParser as it was before the single-loop rewrite (value.go), kept as
// the reference the differential test compares the tape against: same
// nodes, same side table, same duplicate objects, same errors.

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// refParse is ParseWithDuplicates as it was.
func refParse(src []byte) (Value, []Value, error) {
	if len(src) > maxSource {
		return Value{}, nil, &SyntaxError{Msg: fmt.Sprintf("a JSON document of %d bytes is over the 4 GiB planctl reads: split it", len(src))}
	}
	d := &document{src: src, chunks: [][]node{make([]node, 0, min(len(src)/12+4, chunkSize))}}
	p := refParser{src: src, d: d}
	p.skipSpace()
	if err := p.value(0); err != nil {
		return Value{}, nil, err
	}
	p.skipSpace()
	if p.i < len(src) {
		return Value{}, nil, p.errorf("unexpected %s after the JSON value; a plan file holds one JSON document", p.describe())
	}
	dups := make([]Value, len(p.dups))
	for k, i := range p.dups {
		dups[k] = Value{d, i}
	}
	return Value{d, 0}, dups, nil
}

type refParser struct {
	src  []byte
	i    int
	d    *document
	dups []uint32 // objects with a repeated key
}

// add appends a node and returns its index.
func (p *refParser) add(kind Kind, start, end int, flags uint8) uint32 {
	d := p.d
	i := d.n
	last := &d.chunks[len(d.chunks)-1]
	if len(*last) == chunkSize {
		d.chunks = append(d.chunks, make([]node, 0, chunkSize))
		last = &d.chunks[len(d.chunks)-1]
	}
	*last = append(*last, node{start: uint32(start), end: uint32(end), next: i + 1, kind: kind, flags: flags})
	d.n++
	return i
}

func (p *refParser) errorf(format string, args ...any) *SyntaxError {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

// where names an offset as line:column, for messages about another place
// than the one the error points at.
func (p *refParser) where(offset int) string {
	pos := NewSource("", p.src).Position(offset)
	return strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Column)
}

func (p *refParser) describe() string {
	if p.i >= len(p.src) {
		return "end of input"
	}
	c := p.src[p.i]
	if c >= 0x20 && c < 0x7f {
		return strconv.Quote(string(c))
	}
	r, _ := utf8.DecodeRune(p.src[p.i:])
	if r == utf8.RuneError {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("character %U", r)
}

func (p *refParser) skipSpace() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *refParser) value(depth int) error {
	if p.i >= len(p.src) {
		return p.errorf("unexpected end of input: a JSON value is missing")
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.stringNode()
	case c == '-' && p.i+1 < len(p.src) && p.src[p.i+1] == 'I':
		return p.nonFinite()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", Bool, flagTrue)
	case c == 'f':
		return p.literal("false", Bool, 0)
	case c == 'n':
		return p.literal("null", Null, 0)
	case c == 'N', c == 'I':
		return p.nonFinite()
	default:
		return p.errorf("unexpected %s: expected a JSON value", p.describe())
	}
}

// stringNode parses a string at p.i into a String node.
func (p *refParser) stringNode() error {
	start := p.i
	s, escaped, err := p.string()
	if err != nil {
		return err
	}
	if !escaped {
		p.add(String, start, p.i, 0)
		return nil
	}
	i := p.add(String, start, p.i, flagEscaped)
	p.d.esc = append(p.d.esc, escText{i, s})
	return nil
}

func (p *refParser) literal(word string, kind Kind, flags uint8) error {
	if len(p.src)-p.i < len(word) || string(p.src[p.i:p.i+len(word)]) != word {
		return p.errorf("unexpected %s: expected a JSON value (strings need double quotes)", p.describe())
	}
	p.add(kind, p.i, p.i+len(word), flags)
	p.i += len(word)
	return nil
}

func (p *refParser) number() error {
	start := p.i
	src := p.src
	if src[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(src) && src[p.i] >= '0' && src[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(src) && src[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return p.errorf("invalid number: a digit must follow '-'")
	}
	if p.i < len(src) && src[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.errorf("invalid number: a digit must follow the decimal point")
		}
	}
	exp := p.i < len(src) && (src[p.i] == 'e' || src[p.i] == 'E')
	if exp {
		p.i++
		if p.i < len(src) && (src[p.i] == '+' || src[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.errorf("invalid number: a digit must follow the exponent")
		}
	}
	if p.i < len(src) && src[p.i] >= '0' && src[p.i] <= '9' {
		return p.errorf("invalid number: leading zeros are not allowed")
	}
	if (exp || p.i-start >= 300) && beyondDouble(unsafeText(src, start, p.i)) {
		p.add(Null, start, p.i, flagLiteral) // what Concierge's stack makes of it (plan/pyvalue)
	} else {
		p.add(Number, start, p.i, 0)
	}
	return nil
}

// string parses a JSON string at p.i and returns its decoded text, and
// whether it had escapes. Without escapes the text shares the source.
func (p *refParser) string() (string, bool, error) {
	src := p.src
	p.i++ // opening quote
	start := p.i
	// Fast path: no escapes, all ASCII.
	for p.i < len(src) {
		c := src[p.i]
		if c == '"' {
			s := unsafeText(src, start, p.i)
			p.i++
			return s, false, nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		p.i++
	}
	var buf []byte // the decoded text, from the first escape on
	for p.i < len(src) {
		c := src[p.i]
		switch {
		case c == '"':
			p.i++
			if buf == nil {
				return unsafeText(src, start, p.i-1), false, nil
			}
			return string(buf), true, nil
		case c == '\\':
			if buf == nil {
				buf = make([]byte, 0, p.i-start+16)
				buf = append(buf, src[start:p.i]...)
			}
			if p.i+1 >= len(src) {
				return "", false, p.errorf("unterminated string")
			}
			e := src[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", false, p.errorf("invalid \\u escape: four hex digits must follow")
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if p.i+1 < len(src) && src[p.i] == '\\' && src[p.i+1] == 'u' {
						save := p.i
						p.i += 2
						var ok2 bool
						if r2, ok2 = p.hex4(); !ok2 {
							return "", false, p.errorf("invalid \\u escape: four hex digits must follow")
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							r = dec
						} else {
							p.i = save
							buf = AppendSurrogate(buf, r) // kept as Python keeps it
							continue
						}
					} else {
						buf = AppendSurrogate(buf, r)
						continue
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				p.i -= 2
				return "", false, p.errorf("invalid escape '\\%c' in string", e)
			}
		case c < 0x20:
			return "", false, p.errorf("control character %U in string: escape it (\\n, \\t, \\u00XX)", rune(c))
		case c < 0x80:
			if buf != nil {
				buf = append(buf, c)
			}
			p.i++
		default:
			r, size := utf8.DecodeRune(src[p.i:])
			if r == utf8.RuneError && size <= 1 {
				return "", false, p.errorf("invalid UTF-8 byte 0x%02x in string: save the file as UTF-8", c)
			}
			if buf != nil {
				buf = append(buf, src[p.i:p.i+size]...)
			}
			p.i += size
		}
	}
	return "", false, &SyntaxError{Offset: start - 1, Msg: "unterminated string: a closing '\"' is missing"}
}

func (p *refParser) hex4() (rune, bool) {
	if p.i+4 > len(p.src) {
		return 0, false
	}
	var r rune
	for _, c := range p.src[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

func (p *refParser) array(depth int) error {
	if depth >= MaxDepth {
		return p.errorf("nesting deeper than %d levels: flatten the value", MaxDepth)
	}
	start := p.i
	v := p.add(Array, p.i, p.i, 0)
	p.i++
	p.skipSpace()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		p.close(v, 0)
		return nil
	}
	n := 0
	for {
		p.skipSpace()
		if err := p.value(depth + 1); err != nil {
			return err
		}
		n++
		p.skipSpace()
		if p.i >= len(p.src) {
			return p.errorf("unexpected end of input: the array opened at %s is not closed with ']'", p.where(start))
		}
		switch p.src[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			p.close(v, n)
			return nil
		default:
			return p.errorf("unexpected %s in array: expected ',' or ']'", p.describe())
		}
	}
}

// close ends container v at p.i, with n children.
func (p *refParser) close(v uint32, n int) {
	nd := p.d.raw(v)
	nd.end = uint32(p.i)
	nd.next = p.d.n
	nd.n = uint16(min(n, maxCount))
}

func (p *refParser) object(depth int) error {
	if depth >= MaxDepth {
		return p.errorf("nesting deeper than %d levels: flatten the value", MaxDepth)
	}
	start := p.i
	v := p.add(Object, p.i, p.i, 0)
	p.i++
	p.skipSpace()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		p.close(v, 0)
		return nil
	}
	n := 0
	for {
		p.skipSpace()
		if p.i >= len(p.src) {
			return p.errorf("unexpected end of input: the object opened at %s is not closed with '}'", p.where(start))
		}
		if p.src[p.i] != '"' {
			if p.src[p.i] == '}' {
				return p.errorf("trailing comma before '}': remove it")
			}
			return p.errorf("unexpected %s: object keys must be strings in double quotes", p.describe())
		}
		if err := p.stringNode(); err != nil {
			return err
		}
		p.skipSpace()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			key := p.d.text(p.d.n - 1)
			return p.errorf("unexpected %s after object key %s: expected ':'", p.describe(), Quote(key))
		}
		p.i++
		p.skipSpace()
		if err := p.value(depth + 1); err != nil {
			return err
		}
		n++
		p.skipSpace()
		if p.i >= len(p.src) {
			return p.errorf("unexpected end of input: the object opened at %s is not closed with '}'", p.where(start))
		}
		switch p.src[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			p.close(v, n)
			if n > 1 && refRepeatsKey(Value{p.d, v}) {
				p.d.raw(v).flags |= flagDupKeys
				p.dups = append(p.dups, v)
			}
			return nil
		default:
			return p.errorf("unexpected %s in object: expected ',' or '}'", p.describe())
		}
	}
}

func refRepeatsKey(v Value) bool {
	n := v.Len()
	if n < 2 {
		return false
	}
	d, end := v.d, v.n().next
	if n <= 8 {
		var keys [8]string
		i := 0
		for j := v.i + 1; j < end; j = d.node(j + 1).next {
			key := d.text(j)
			for _, k := range keys[:i] {
				if k == key {
					return true
				}
			}
			keys[i] = key
			i++
		}
		return false
	}
	seen := make(map[string]struct{}, n)
	for j := v.i + 1; j < end; j = d.node(j + 1).next {
		key := d.text(j)
		if _, ok := seen[key]; ok {
			return true
		}
		seen[key] = struct{}{}
	}
	return false
}

// nonFinite parses NaN, Infinity or -Infinity, which Python's json.loads
// accepts, into a null that keeps its literal.
func (p *refParser) nonFinite() error {
	for _, word := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if len(p.src)-p.i >= len(word) && string(p.src[p.i:p.i+len(word)]) == word {
			p.add(Null, p.i, p.i+len(word), flagLiteral)
			p.i += len(word)
			return nil
		}
	}
	return p.errorf("unexpected %s: expected a JSON value (strings need double quotes)", p.describe())
}
