package jsontext

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String names the kind the way JSON Schema does.
func (k Kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// Value is one node of a parsed JSON document. It keeps the byte offsets of
// the value in its source, so that any diagnostic can point at it, and keeps
// numbers as the literal text the author wrote.
type Value struct {
	Kind  Kind
	Start int // offset of the first byte of the value
	End   int // offset just past the value
	// Str is the decoded text of a String and the literal of a Number. A
	// Null with a non-empty Str was written as a number a double cannot
	// hold (1e400) or as NaN/Infinity: Python's side of Concierge sees
	// None there, and so does planctl (see plan/pyvalue); Str keeps the
	// literal for the validator's NUMBER_RANGE warning.
	Str     string
	Bool    bool
	Elems   []*Value
	Members []Member
}

// Member is one key of an object, in source order. Duplicate keys are kept
// here; Get reads the last one, as Python's json.loads does.
type Member struct {
	Key      string
	KeyStart int
	KeyEnd   int
	Value    *Value
}

// Get returns the value of key in an object (the last one when the key is
// repeated), or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Raw returns the source bytes of the value.
func (v *Value) Raw(src []byte) []byte { return src[v.Start:v.End] }

// SyntaxError is a JSON document that does not parse, with the byte offset
// where parsing stopped.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

// MaxDepth bounds the nesting of arrays and objects. Python's own parser
// gives up near 1,000 levels, so a plan that deep would never run on
// Concierge either.
const MaxDepth = 1000

// Parse parses one JSON document into a tree of Values. It rejects
// invalid UTF-8, nesting past MaxDepth and trailing data. It is planctl's own
// parser rather than encoding/json because it must keep byte offsets and
// number literals, and keep duplicate keys visible, in one fast pass.
//
// Strings and number literals in the tree share src's memory: src must not
// be modified while the tree is in use.
func Parse(src []byte) (*Value, error) {
	v, _, err := ParseWithDuplicates(src)
	return v, err
}

// ParseWithDuplicates is Parse that also returns the objects that repeat a key.
func ParseWithDuplicates(src []byte) (*Value, []*Value, error) {
	p := parser{src: src}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, nil, err
	}
	p.skipSpace()
	if p.i < len(src) {
		return nil, nil, p.errorf("unexpected %s after the JSON value; a plan file holds one JSON document", p.describe())
	}
	return v, p.dups, nil
}

type parser struct {
	src     []byte
	i       int
	nodes   []Value // slab of nodes, to allocate in bulk
	slab    int     // size of the next slab: grows, so small documents stay small
	elems   []*Value
	members []Member
	dups    []*Value // objects with a repeated key
}

// text returns src[start:end] as a string that shares the source's memory:
// a plan's strings and number literals cost no copy. Parse documents
// that its input must not change while the tree is in use.
func (p *parser) text(start, end int) string {
	if start == end {
		return ""
	}
	return unsafe.String(&p.src[start], end-start)
}

func (p *parser) node() *Value {
	if len(p.nodes) == 0 {
		p.slab = min(max(4, 2*p.slab), 4096)
		p.nodes = make([]Value, p.slab)
	}
	v := &p.nodes[0]
	p.nodes = p.nodes[1:]
	return v
}

func (p *parser) errorf(format string, args ...any) *SyntaxError {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

// where names an offset as line:column, for messages about another place
// than the one the error points at.
func (p *parser) where(offset int) string {
	pos := NewSource("", p.src).Position(offset)
	return strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Column)
}

func (p *parser) describe() string {
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

func (p *parser) skipSpace() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (*Value, error) {
	if p.i >= len(p.src) {
		return nil, p.errorf("unexpected end of input: a JSON value is missing")
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		start := p.i
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		v := p.node()
		*v = Value{Kind: String, Start: start, End: p.i, Str: s}
		return v, nil
	case c == '-' && p.i+1 < len(p.src) && p.src[p.i+1] == 'I':
		return p.nonFinite()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", Bool, true)
	case c == 'f':
		return p.literal("false", Bool, false)
	case c == 'n':
		return p.literal("null", Null, false)
	case c == 'N', c == 'I':
		return p.nonFinite()
	default:
		return nil, p.errorf("unexpected %s: expected a JSON value", p.describe())
	}
}

func (p *parser) literal(word string, kind Kind, b bool) (*Value, error) {
	if len(p.src)-p.i < len(word) || string(p.src[p.i:p.i+len(word)]) != word {
		return nil, p.errorf("unexpected %s: expected a JSON value (strings need double quotes)", p.describe())
	}
	v := p.node()
	*v = Value{Kind: kind, Start: p.i, End: p.i + len(word), Bool: b}
	p.i += len(word)
	return v, nil
}

func (p *parser) number() (*Value, error) {
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
		return nil, p.errorf("invalid number: a digit must follow '-'")
	}
	if p.i < len(src) && src[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.errorf("invalid number: a digit must follow the decimal point")
		}
	}
	if p.i < len(src) && (src[p.i] == 'e' || src[p.i] == 'E') {
		p.i++
		if p.i < len(src) && (src[p.i] == '+' || src[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.errorf("invalid number: a digit must follow the exponent")
		}
	}
	if p.i < len(src) && src[p.i] >= '0' && src[p.i] <= '9' {
		return nil, p.errorf("invalid number: leading zeros are not allowed")
	}
	v := p.node()
	*v = Value{Kind: Number, Start: start, End: p.i, Str: p.text(start, p.i)}
	if beyondDouble(v.Str) {
		v.Kind = Null // what Concierge's stack makes of it (plan/pyvalue)
	}
	return v, nil
}

// string parses a JSON string at p.i and returns its decoded text.
func (p *parser) string() (string, error) {
	src := p.src
	p.i++ // opening quote
	start := p.i
	// Fast path: no escapes, all ASCII.
	for p.i < len(src) {
		c := src[p.i]
		if c == '"' {
			s := p.text(start, p.i)
			p.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		p.i++
	}
	buf := make([]byte, 0, p.i-start+16)
	buf = append(buf, src[start:p.i]...)
	for p.i < len(src) {
		c := src[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), nil
		case c == '\\':
			if p.i+1 >= len(src) {
				return "", p.errorf("unterminated string")
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
					return "", p.errorf("invalid \\u escape: four hex digits must follow")
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if p.i+1 < len(src) && src[p.i] == '\\' && src[p.i+1] == 'u' {
						save := p.i
						p.i += 2
						var ok2 bool
						if r2, ok2 = p.hex4(); !ok2 {
							return "", p.errorf("invalid \\u escape: four hex digits must follow")
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							r = dec
						} else {
							p.i = save
							r = utf8.RuneError
						}
					} else {
						r = utf8.RuneError
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				p.i -= 2
				return "", p.errorf("invalid escape '\\%c' in string", e)
			}
		case c < 0x20:
			return "", p.errorf("control character %U in string: escape it (\\n, \\t, \\u00XX)", rune(c))
		case c < 0x80:
			buf = append(buf, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(src[p.i:])
			if r == utf8.RuneError && size <= 1 {
				return "", p.errorf("invalid UTF-8 byte 0x%02x in string: save the file as UTF-8", c)
			}
			buf = append(buf, src[p.i:p.i+size]...)
			p.i += size
		}
	}
	return "", &SyntaxError{Offset: start - 1, Msg: "unterminated string: a closing '\"' is missing"}
}

func (p *parser) hex4() (rune, bool) {
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

func (p *parser) array(depth int) (*Value, error) {
	if depth >= MaxDepth {
		return nil, p.errorf("nesting deeper than %d levels: flatten the value", MaxDepth)
	}
	v := p.node()
	*v = Value{Kind: Array, Start: p.i}
	p.i++
	p.skipSpace()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		v.End = p.i
		return v, nil
	}
	base := len(p.elems)
	for {
		p.skipSpace()
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.elems = append(p.elems, e)
		p.skipSpace()
		if p.i >= len(p.src) {
			return nil, p.errorf("unexpected end of input: the array opened at %s is not closed with ']'", p.where(v.Start))
		}
		switch p.src[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			v.End = p.i
			v.Elems = append([]*Value(nil), p.elems[base:]...)
			p.elems = p.elems[:base]
			return v, nil
		default:
			return nil, p.errorf("unexpected %s in array: expected ',' or ']'", p.describe())
		}
	}
}

func (p *parser) object(depth int) (*Value, error) {
	if depth >= MaxDepth {
		return nil, p.errorf("nesting deeper than %d levels: flatten the value", MaxDepth)
	}
	v := p.node()
	*v = Value{Kind: Object, Start: p.i}
	p.i++
	p.skipSpace()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		v.End = p.i
		return v, nil
	}
	base := len(p.members)
	for {
		p.skipSpace()
		if p.i >= len(p.src) {
			return nil, p.errorf("unexpected end of input: the object opened at %s is not closed with '}'", p.where(v.Start))
		}
		if p.src[p.i] != '"' {
			if p.src[p.i] == '}' {
				return nil, p.errorf("trailing comma before '}': remove it")
			}
			return nil, p.errorf("unexpected %s: object keys must be strings in double quotes", p.describe())
		}
		ks := p.i
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		ke := p.i
		p.skipSpace()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, p.errorf("unexpected %s after object key %q: expected ':'", p.describe(), key)
		}
		p.i++
		p.skipSpace()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.members = append(p.members, Member{Key: key, KeyStart: ks, KeyEnd: ke, Value: val})
		p.skipSpace()
		if p.i >= len(p.src) {
			return nil, p.errorf("unexpected end of input: the object opened at %s is not closed with '}'", p.where(v.Start))
		}
		switch p.src[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			v.End = p.i
			v.Members = append([]Member(nil), p.members[base:]...)
			p.members = p.members[:base]
			if HasDuplicateKeys(v) {
				p.dups = append(p.dups, v)
			}
			return v, nil
		default:
			return nil, p.errorf("unexpected %s in object: expected ',' or '}'", p.describe())
		}
	}
}

// HasDuplicateKeys reports whether object v repeats a key.
func HasDuplicateKeys(v *Value) bool {
	if len(v.Members) < 2 {
		return false
	}
	if len(v.Members) <= 8 {
		for i := 1; i < len(v.Members); i++ {
			for j := 0; j < i; j++ {
				if v.Members[i].Key == v.Members[j].Key {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(v.Members))
	for _, m := range v.Members {
		if _, ok := seen[m.Key]; ok {
			return true
		}
		seen[m.Key] = struct{}{}
	}
	return false
}
