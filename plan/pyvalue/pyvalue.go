package pyvalue

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/planctl/planctl/plan/jsontext"
)

// Values as Python sees them.
//
// Concierge never sees the text of a plan: the MCP SDK parses the JSON-RPC
// request (Python's json) before execute_plan runs, so every id, tool name,
// path element and argument the backend touches is already a Python value,
// and every tool result comes back through the same parse. planctl applies
// the same normalisation where the values enter:
//
//   - parsing (jsontext.Parse): a number a double cannot hold (1e400, -1e400) and
//     the NaN/Infinity literals Python's json accepts become null, keeping
//     their literal for the validator (NUMBER_RANGE); so {"id": 1e400} is a
//     step without an id, exactly as on Concierge. Floats keep their literal
//     in the tree and are rendered by FloatRepr wherever a value is written
//     (1E5 is 100000.0, 2.50 is 2.5, 1e-400 is 0.0); integers stay exact.
//     A repeated key is read last-wins everywhere (Value.Get, Members).
//   - arguments a tool receives (ResolveArgs via AppendJSON): written from
//     the tree as json.dumps would write the decoded value, so a repeated key
//     inside a value reaches the tool (and mock "cases") once, with its last
//     value.
//   - tool results (Values, when a step's result arrives): the same
//     rewrite, only when something would change.
//
// Strings are left as UTF-8 in planctl's own output; the MCP wire text
// (DumpsIndent) escapes every character outside printable ASCII, as
// json.dumps(ensure_ascii=True) does.

// NumberJSON writes a number literal as json.dumps writes the value
// json.loads makes of it: an int exactly ("-0" is 0), a float as repr.
func NumberJSON(lit string) string {
	if IsIntLiteral(lit) {
		if lit == "-0" {
			return "0"
		}
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && math.IsInf(f, 0) {
		return "null"
	}
	return FloatRepr(f)
}

// numberChanges reports whether Python would write lit differently.
func numberChanges(lit string) bool {
	if IsIntLiteral(lit) {
		return lit == "-0"
	}
	return floatChanges(lit)
}

// floatChanges is numberChanges for a literal known to be a float (it has
// a '.', an 'e' or an 'E').
func floatChanges(lit string) bool {
	return !reprLiteral(lit) && NumberJSON(lit) != lit
}

// reprLiteral reports, cheaply, whether a float literal is already written
// as Python's repr writes its value: fixed notation, no exponent, at most 15
// significant digits (every such decimal survives a double, and no shorter
// one names the same double), no trailing zero but a lone ".0", and a value
// between 1e-4 and 1e16 (or zero), where repr uses fixed notation. Most
// floats in results look like this; the rest take the exact path.
func reprLiteral(lit string) bool {
	s := lit
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	dot := strings.IndexByte(s, '.')
	if dot <= 0 || dot > 16 || dot == len(s)-1 {
		return false
	}
	intPart, frac := s[:dot], s[dot+1:]
	if len(intPart) > 1 && intPart[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && i != dot {
			return false // an exponent
		}
	}
	if len(frac) > 1 && frac[len(frac)-1] == '0' {
		return false
	}
	sig := len(intPart) + len(frac)
	if intPart == "0" {
		z := len(frac) - len(strings.TrimLeft(frac, "0"))
		if z == len(frac) {
			return true // 0.0
		}
		if z > 3 {
			return false // below 1e-4: repr is scientific
		}
		sig = len(frac) - z
	} else if frac == "0" {
		sig = len(strings.TrimRight(intPart, "0"))
	}
	return sig <= 15
}

// AppendJSON appends v as compact JSON of the value Python holds after
// json.loads: floats as repr writes them, numbers beyond a double and
// NaN/Infinity as null, a repeated key once (first place, last value).
// Strings are escaped as JSON requires and otherwise kept as UTF-8.
func AppendJSON(dst []byte, v jsontext.Value) []byte { return appendJSON(dst, v, false) }

// appendJSON is AppendJSON; floats writes a NaN or Infinity word as
// json.dumps writes the float json.loads made of it (Floats).
func appendJSON(dst []byte, v jsontext.Value, floats bool) []byte {
	switch v.Kind() {
	case jsontext.Null:
		if floats && isFloatWord(v) {
			return append(dst, nonFiniteText(v.Str())...)
		}
		return append(dst, "null"...)
	case jsontext.Bool:
		if v.Bool() {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case jsontext.Number:
		if (IsIntLiteral(v.Str()) && v.Str() != "-0") || reprLiteral(v.Str()) {
			return append(dst, v.Str()...)
		}
		return append(dst, NumberJSON(v.Str())...)
	case jsontext.String:
		return jsontext.AppendJSONString(dst, v.Str())
	case jsontext.Array:
		dst = append(dst, '[')
		for i, e := range v.Elems() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e, floats)
		}
		return append(dst, ']')
	default:
		dst = append(dst, '{')
		for i, m := range Members(v) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsontext.AppendJSONString(dst, m.Key)
			dst = append(dst, ':')
			dst = appendJSON(dst, m.Value, floats)
		}
		return append(dst, '}')
	}
}

// isFloatWord reports whether v was written NaN, Infinity or -Infinity
// (not a number beyond a double, which is also a null that keeps its
// literal).
func isFloatWord(v jsontext.Value) bool {
	switch v.Str() {
	case "NaN", "Infinity", "-Infinity":
		return true
	}
	return false
}

// Floats is raw as Values makes it, but with each NaN, Infinity or
// -Infinity word kept, as json.dumps writes the float: the value of a
// tool that runs in the server's own process (a FastMCP function, which
// can return a float pydantic made infinite) as Concierge's text content
// shows it. It returns nil when raw holds no such word, or does not parse;
// a number beyond a double is null there as in Values.
func Floats(raw []byte) []byte {
	if !bytes.Contains(raw, []byte("NaN")) && !bytes.Contains(raw, []byte("Infinity")) {
		return nil
	}
	v, err := jsontext.Parse(raw)
	if err != nil || !hasFloatWord(v) {
		return nil
	}
	return appendJSON(make([]byte, 0, len(raw)), v, true)
}

func hasFloatWord(v jsontext.Value) bool {
	switch v.Kind() {
	case jsontext.Null:
		return isFloatWord(v)
	case jsontext.Array:
		for _, e := range v.Elems() {
			if hasFloatWord(e) {
				return true
			}
		}
	case jsontext.Object:
		for _, m := range v.Members() {
			if hasFloatWord(m.Value) {
				return true
			}
		}
	}
	return false
}

// AppendJSONOf is AppendJSON(dst, v) for v a value in src. An array or
// object whose text Python would write back unchanged and that escapes
// nothing (a decoded string is re-escaped by AppendJSON, "\/" as "/"), as
// its nodes on the tape tell, is copied without its whitespace
// (jsontext.AppendPlain: its tokens' text, from their spans)
// instead of being rebuilt from its tree, each string re-escaped and each
// number rewritten.
func AppendJSONOf(dst []byte, v jsontext.Value, src []byte) []byte {
	switch v.Kind() {
	case jsontext.Object, jsontext.Array:
		if out, ok := jsontext.AppendPlain(dst, v, sameNumber); ok {
			return out
		}
	case jsontext.String:
		// A string without escapes is written as its source has it: that is
		// what AppendJSON writes of its text, the source being UTF-8 with no
		// control character in a string (the parser takes no other), so
		// holding no surrogate (which only an escape can write).
		if !v.Escaped() {
			return append(dst, v.Raw(src)...)
		}
	}
	return AppendJSON(dst, v)
}

// Values returns raw JSON as the value Python reads from it: raw itself
// when json.loads + json.dumps would change no value (its whitespace and
// string escapes are kept), else the value rewritten by AppendJSON. Text
// that does not parse is returned unchanged.
func Values(raw []byte) []byte {
	v, _ := ValuesUnique(raw)
	return v
}

// ValuesUnique is Values, and reports whether no object of the text it
// returns repeats a key (once decoded): always so for JSON, whose
// repeated keys Values drops as Python does; for text that is not JSON,
// only when a scan found none. A reader of such text may take a key's
// first copy as its only one (jsontext.RawFirstMember).
func ValuesUnique(raw []byte) (_ []byte, unique bool) {
	if pyClean(raw) {
		return raw, true // the common case, found without building a tree
	}
	v, dups, err := jsontext.ParseWithDuplicates(raw)
	if err != nil {
		return raw, false
	}
	if len(dups) == 0 && !pyChanges(v) {
		return raw, true
	}
	return AppendJSON(make([]byte, 0, len(raw)), v), true // Python's dict keeps one copy of a key
}

// pyChanges reports whether some number under v is written differently by
// Python, or is beyond a double.
func pyChanges(v jsontext.Value) bool {
	switch v.Kind() {
	case jsontext.Number:
		return numberChanges(v.Str())
	case jsontext.Null:
		return v.Str() != ""
	case jsontext.Array:
		for _, e := range v.Elems() {
			if pyChanges(e) {
				return true
			}
		}
	case jsontext.Object:
		for _, m := range v.Members() {
			if pyChanges(m.Value) {
				return true
			}
		}
	}
	return false
}

// DumpsIndent renders raw JSON as Python's json.dumps(value, indent=2)
// writes the decoded value: two-space indentation, ", " never at a line end,
// ": " after keys, every character outside printable ASCII escaped as \uXXXX
// (surrogate pairs beyond the BMP), floats as repr. This is the text of a
// Concierge server's execute_plan result. Text that does not parse is
// returned unchanged.
func DumpsIndent(raw []byte) []byte {
	return []byte(DumpsIndentString(raw))
}

// DumpsIndentString is DumpsIndent as a string, made without a copy (an
// MCP answer's text is a string: a served plan's answer was copied twice).
// A large text is counted first (SizesOf) and written into a buffer made
// once at its size: escapes and indentation can make it many times raw,
// and a buffer grown by doubling from a guess had been up to twice the
// text, with as much again left as garbage.
func DumpsIndentString(raw []byte) string {
	text, _ := dumpsIndent(raw, false)
	return text
}

// DumpsIndentKeys is DumpsIndentString that writes a key an object
// repeats as often as it comes, and reports whether one did. A Concierge
// response's steps dict can hold both the int 1 and the str "1", which
// json.dumps writes as two "1" keys; planctl's response text holds both
// for that reason alone (its values have been through Values).
func DumpsIndentKeys(raw []byte) (string, bool) {
	return dumpsIndent(raw, true)
}

func dumpsIndent(raw []byte, keep bool) (string, bool) {
	v, dups, err := jsontext.ParseWithDuplicates(raw)
	if err != nil {
		return string(raw), false
	}
	size := len(raw) + len(raw)/2
	if len(raw) > 16<<10 {
		size = int(SizesOf(raw, 0).Text)
	}
	var b strings.Builder
	b.Grow(size)
	pyDumpsIndent(&b, v, 0, keep)
	return b.String(), len(dups) > 0
}

func pyDumpsIndent(b *strings.Builder, v jsontext.Value, depth int, keep bool) {
	newline := func(d int) {
		b.WriteByte('\n')
		for range d {
			b.WriteString("  ")
		}
	}
	switch v.Kind() {
	case jsontext.Array:
		if v.Len() == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range v.Elems() {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			pyDumpsIndent(b, e, depth+1, keep)
		}
		newline(depth)
		b.WriteByte(']')
	case jsontext.Object:
		ms := Members(v)
		if keep {
			ms = v.Members()
		}
		if v.Len() == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			DumpsString(b, m.Key)
			b.WriteString(": ")
			pyDumpsIndent(b, m.Value, depth+1, keep)
		}
		newline(depth)
		b.WriteByte('}')
	default:
		// A NaN or Infinity word is a float Python holds (runner's
		// ResponseFloats): json.dumps writes it so. A run's response has
		// none otherwise (its values went through Values).
		pyDumps(b, v, true)
	}
}

// DumpsString writes s as json.dumps(ensure_ascii=True) does: the escapes
// \" \\ \n \r \t \b \f, and \uXXXX for every other character outside
// printable ASCII (control characters, DEL, and all non-ASCII; a lone
// surrogate kept as WTF-8 as itself, a byte that is not UTF-8 as \ufffd).
func DumpsString(b *strings.Builder, s string) {
	var esc [12]byte
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError {
			if sr, ok := jsontext.SurrogateAt(s, i); ok {
				r, n = sr, 3
			}
		}
		if r >= 0x20 && r < 0x7f && r != '"' && r != '\\' {
			b.WriteByte(byte(r))
		} else {
			b.Write(jsontext.AppendRuneEscape(esc[:0], r))
		}
		i += n
	}
	b.WriteByte('"')
}

// Clean reports whether Values(raw) is raw itself, as one pass that
// builds nothing can tell (pyClean), and, when it is, how deep raw nests
// (jsontext.Depth): a caller that checks a result's depth and then reads
// it as Python does reads it once. False means "not sure" too; depth is
// then 0, not measured.
func Clean(raw []byte) (clean bool, depth int) {
	return pyScan(raw)
}

// pyClean reports, in one pass that builds nothing, whether raw JSON is
// already what Python would write of its value: no number it writes
// differently, no NaN/Infinity, no object repeating a key. False means
// "not sure" too (an escaped key, an object of many keys, text that is not
// JSON): Values then takes the exact path.
func pyClean(b []byte) bool {
	clean, _ := pyScan(b)
	return clean
}

// sameNumber reports whether Python writes lit as it is.
func sameNumber(lit string) bool { return !numberChanges(lit) }

// pyScan is pyClean, and the deepest nesting of containers it passed:
// raw's depth when it is clean.
func pyScan(b []byte) (clean bool, depth int) {
	if uint64(len(b)) > math.MaxUint32 {
		return false, 0 // keySpan's offsets are 32 bits: the exact path reads it
	}
	const maxKeys = 32
	var keyBuf [maxKeys]keySpan
	var startBuf [16]int
	keys := keyBuf[:0]     // the keys of the open objects, innermost last (on the stack for a shallow result)
	starts := startBuf[:0] // per open container: where its keys start in keys; -1 for an array
	for i := 0; i < len(b); {
		c := b[i]
		switch scanClass[c] {
		case scanQuote:
			end, escaped := jsontext.SkipStringEscaped(b, i)
			j := jsontext.SkipSpace(b, end)
			if j < len(b) && b[j] == ':' && len(starts) > 0 && starts[len(starts)-1] >= 0 {
				if escaped {
					return false, 0 // a key escaped: its copies are found decoded
				}
				key := b[i+1 : end-1]
				own := keys[starts[len(starts)-1]:]
				if len(own) >= maxKeys {
					return false, 0
				}
				for _, k := range own {
					if int(k.end-k.start) == len(key) && string(b[k.start:k.end]) == string(key) {
						return false, 0
					}
				}
				keys = append(keys, keySpan{uint32(i + 1), uint32(end - 1)})
				end = j + 1 // past the ':'
			}
			i = end
		case scanOpen:
			s := -1 // an array
			if c == '{' {
				s = len(keys)
			}
			starts = append(starts, s)
			depth = max(depth, len(starts))
			i++
		case scanClose:
			if len(starts) == 0 {
				return false, 0
			}
			if s := starts[len(starts)-1]; s >= 0 {
				keys = keys[:s]
			}
			starts = starts[:len(starts)-1]
			i++
		case scanNumber:
			end, integer := jsontext.SkipNumber(b, i)
			if end == i || (c == '-' && (end-i < 2 || b[i+1] < '0' || b[i+1] > '9')) {
				return false, 0 // -Infinity, or not a number
			}
			if integer {
				if end-i == 2 && c == '-' && b[i+1] == '0' {
					return false, 0 // -0 is 0
				}
			} else if floatChanges(string(b[i:end])) {
				return false, 0
			}
			i = end
		case scanNonFinite:
			return false, 0
		default: // whitespace, ',', and the letters of true, false and null
			i++
		}
	}
	return true, depth
}

// A keySpan is where an object key's text (quotes left out) is in pyScan's
// input: the keys of the open objects are kept on the stack, 8 bytes each.
type keySpan struct{ start, end uint32 }

// pyScan's classes of a byte: what may start there.
const (
	scanOther     = iota
	scanQuote     // a string
	scanOpen      // an object or an array
	scanClose     // its end
	scanNumber    // '-' or a digit
	scanNonFinite // NaN, Infinity: not JSON, never clean
)

// scanClass is pyScan's class of each byte: one jump where a chain of
// comparisons read most bytes (the ':', ',' and letters of true) to their end.
var scanClass = [256]uint8{
	'"': scanQuote,
	'{': scanOpen, '[': scanOpen,
	'}': scanClose, ']': scanClose,
	'-': scanNumber, '0': scanNumber, '1': scanNumber, '2': scanNumber, '3': scanNumber, '4': scanNumber,
	'5': scanNumber, '6': scanNumber, '7': scanNumber, '8': scanNumber, '9': scanNumber,
	'N': scanNonFinite, 'I': scanNonFinite,
}

// isSurrogateTail reports whether byte i of s is the second or third byte
// of a surrogate kept as WTF-8 (jsontext.SurrogateAt).
func isSurrogateTail(s string, i int) bool {
	for k := 1; k <= 2 && i-k >= 0; k++ {
		if _, ok := jsontext.SurrogateAt(s, i-k); ok {
			return true
		}
	}
	return false
}

// PydanticFloat is how pydantic-core writes a float in JSON (an MCP
// result's structuredContent): the shortest digits, as repr, but in plain
// notation from 1e-5 (0.00001) up to 1e16, and an exponent without a
// leading zero (1e-7, where repr writes 1e-07).
func PydanticFloat(f float64) string {
	sci := strconv.FormatFloat(f, 'e', -1, 64)
	i := strings.LastIndexByte(sci, 'e')
	exp, _ := strconv.Atoi(sci[i+1:])
	if exp >= -5 && exp < 16 {
		fixed := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsAny(fixed, ".") {
			fixed += ".0"
		}
		return fixed
	}
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	return sci[:i] + "e" + sign + strconv.Itoa(exp)
}

// PydanticFloats returns the JSON text raw, whose floats are spelled as
// Python's repr spells them, with each float pydantic-core spells
// differently rewritten (PydanticFloat): only those with a negative
// exponent of one digit, which repr pads (1e-07, 1e-05). raw itself when
// there is none.
func PydanticFloats(raw []byte) []byte {
	if !bytes.Contains(raw, []byte("e-0")) {
		return raw
	}
	var out []byte
	start := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '"' {
			i = jsontext.SkipString(raw, i) - 1
			continue
		}
		if c != '-' && (c < '0' || c > '9') {
			continue
		}
		j := i + 1
		for j < len(raw) && (raw[j] >= '0' && raw[j] <= '9' || raw[j] == '.' || raw[j] == 'e' || raw[j] == 'E' || raw[j] == '+' || raw[j] == '-') {
			j++
		}
		if tok := raw[i:j]; bytes.Contains(tok, []byte("e-0")) {
			if f, err := strconv.ParseFloat(string(tok), 64); err == nil {
				out = append(append(out, raw[start:i]...), PydanticFloat(f)...)
				start = j
			}
		}
		i = j - 1
	}
	if out == nil {
		return raw
	}
	return append(out, raw[start:]...)
}
