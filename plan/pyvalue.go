package plan

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Values as Python sees them (SPEC 2).
//
// Concierge never sees the text of a plan: the MCP SDK parses the JSON-RPC
// request (Python's json) before execute_plan runs, so every id, tool name,
// path element and argument the backend touches is already a Python value,
// and every tool result comes back through the same parse. planctl applies
// the same normalisation where the values enter:
//
//   - parsing (ParseJSON): a number a double cannot hold (1e400, -1e400) and
//     the NaN/Infinity literals Python's json accepts become null, keeping
//     their literal for the validator (NUMBER_RANGE); so {"id": 1e400} is a
//     step without an id, exactly as on Concierge. Floats keep their literal
//     in the tree and are rendered by PyFloatRepr wherever a value is written
//     (1E5 is 100000.0, 2.50 is 2.5, 1e-400 is 0.0); integers stay exact.
//     A repeated key is read last-wins everywhere (Value.Get, pyMembers).
//   - arguments a tool receives (ResolveArgs via AppendPyJSON): written from
//     the tree as json.dumps would write the decoded value, so a repeated key
//     inside a value reaches the tool (and mock "cases") once, with its last
//     value.
//   - tool results (PyValues, when a step's result arrives): the same
//     rewrite, only when something would change.
//
// Strings are left as UTF-8 in planctl's own output; the MCP wire text
// (PyDumpsIndent) escapes every character outside printable ASCII, as
// json.dumps(ensure_ascii=True) does.

// beyondDouble reports whether a JSON number literal is a float that
// overflows a double. Integer literals never do: Python's ints are exact.
func beyondDouble(lit string) bool {
	exp := strings.IndexAny(lit, "eE")
	if exp < 0 && (len(lit) < 300 || strings.IndexByte(lit, '.') < 0) {
		return false // no exponent and short: at most 1e300; or an int
	}
	f, _ := strconv.ParseFloat(lit, 64)
	return math.IsInf(f, 0)
}

// nonFinite parses NaN, Infinity or -Infinity, which Python's json.loads
// accepts, into a null that keeps its literal.
func (p *parser) nonFinite() (*Value, error) {
	for _, word := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if len(p.src)-p.i >= len(word) && string(p.src[p.i:p.i+len(word)]) == word {
			v := p.node()
			*v = Value{Kind: Null, Start: p.i, End: p.i + len(word), Str: p.text(p.i, p.i+len(word))}
			p.i += len(word)
			return v, nil
		}
	}
	return nil, p.errorf("unexpected %s: expected a JSON value (strings need double quotes)", p.describe())
}

// IsNonFinite reports whether v was written as a number a double cannot
// hold, or as NaN/Infinity: Concierge receives null there.
func IsNonFinite(v *Value) bool { return v != nil && v.Kind == Null && v.Str != "" }

// pyNumberJSON writes a number literal as json.dumps writes the value
// json.loads makes of it: an int exactly ("-0" is 0), a float as repr.
func pyNumberJSON(lit string) string {
	if isIntLiteral(lit) {
		if lit == "-0" {
			return "0"
		}
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && math.IsInf(f, 0) {
		return "null"
	}
	return PyFloatRepr(f)
}

// numberChanges reports whether Python would write lit differently.
func numberChanges(lit string) bool {
	if isIntLiteral(lit) {
		return lit == "-0"
	}
	return pyNumberJSON(lit) != lit
}

// AppendPyJSON appends v as compact JSON of the value Python holds after
// json.loads: floats as repr writes them, numbers beyond a double and
// NaN/Infinity as null, a repeated key once (first place, last value).
// Strings are escaped as JSON requires and otherwise kept as UTF-8.
func AppendPyJSON(dst []byte, v *Value) []byte {
	switch v.Kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		if isIntLiteral(v.Str) && v.Str != "-0" {
			return append(dst, v.Str...)
		}
		return append(dst, pyNumberJSON(v.Str)...)
	case String:
		return AppendJSONString(dst, v.Str)
	case Array:
		dst = append(dst, '[')
		for i, e := range v.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendPyJSON(dst, e)
		}
		return append(dst, ']')
	default:
		dst = append(dst, '{')
		for i, m := range pyMembers(v) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSONString(dst, m.Key)
			dst = append(dst, ':')
			dst = AppendPyJSON(dst, m.Value)
		}
		return append(dst, '}')
	}
}

// PyValues returns raw JSON as the value Python reads from it: raw itself
// when json.loads + json.dumps would change no value (its whitespace and
// string escapes are kept), else the value rewritten by AppendPyJSON. Text
// that does not parse is returned unchanged.
func PyValues(raw []byte) []byte {
	v, dups, err := parseJSON(raw)
	if err != nil {
		return raw
	}
	if len(dups) == 0 && !pyChanges(v) {
		return raw
	}
	return AppendPyJSON(make([]byte, 0, len(raw)), v)
}

// pyChanges reports whether some number under v is written differently by
// Python, or is beyond a double.
func pyChanges(v *Value) bool {
	switch v.Kind {
	case Number:
		return numberChanges(v.Str)
	case Null:
		return v.Str != ""
	case Array:
		for _, e := range v.Elems {
			if pyChanges(e) {
				return true
			}
		}
	case Object:
		for _, m := range v.Members {
			if pyChanges(m.Value) {
				return true
			}
		}
	}
	return false
}

// PyDumpsIndent renders raw JSON as Python's json.dumps(value, indent=2)
// writes the decoded value: two-space indentation, ", " never at a line end,
// ": " after keys, every character outside printable ASCII escaped as \uXXXX
// (surrogate pairs beyond the BMP), floats as repr. This is the text of a
// Concierge server's execute_plan result. Text that does not parse is
// returned unchanged.
func PyDumpsIndent(raw []byte) []byte {
	v, err := ParseJSON(raw)
	if err != nil {
		return raw
	}
	var b strings.Builder
	b.Grow(len(raw) + len(raw)/2)
	pyDumpsIndent(&b, v, 0)
	return []byte(b.String())
}

func pyDumpsIndent(b *strings.Builder, v *Value, depth int) {
	newline := func(d int) {
		b.WriteByte('\n')
		for range d {
			b.WriteString("  ")
		}
	}
	switch v.Kind {
	case Array:
		if len(v.Elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			pyDumpsIndent(b, e, depth+1)
		}
		newline(depth)
		b.WriteByte(']')
	case Object:
		ms := pyMembers(v)
		if len(ms) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			pyDumpsString(b, m.Key)
			b.WriteString(": ")
			pyDumpsIndent(b, m.Value, depth+1)
		}
		newline(depth)
		b.WriteByte('}')
	default:
		pyDumps(b, v)
	}
}

// pyDumpsString writes s as json.dumps(ensure_ascii=True) does: the escapes
// \" \\ \n \r \t \b \f, and \uXXXX for every other character outside
// printable ASCII (control characters, DEL, and all non-ASCII).
func pyDumpsString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	u4 := func(r rune) {
		b.WriteString(`\u`)
		b.WriteByte(hex[r>>12&15])
		b.WriteByte(hex[r>>8&15])
		b.WriteByte(hex[r>>4&15])
		b.WriteByte(hex[r&15])
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r >= 0x10000:
			r1, r2 := utf16.EncodeRune(r)
			u4(r1)
			u4(r2)
		default:
			u4(r)
		}
	}
	b.WriteByte('"')
}
