package pyvalue

import (
	"iter"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/planctl/planctl/plan/jsontext"
)

// Concierge is written in Python and its messages interpolate Python values:
// str() of a decoded JSON value, repr() of a path element, type(x).__name__.
// These helpers reproduce those renderings so planctl's messages are
// Concierge's, byte for byte.

// TypeName is Python's name for the type json.loads gives a value.
func TypeName(v jsontext.Value) string {
	switch v.Kind() {
	case jsontext.String:
		return "str"
	case jsontext.Number:
		if IsIntLiteral(v.Str()) {
			return "int"
		}
		return "float"
	case jsontext.Bool:
		return "bool"
	case jsontext.Null:
		return "NoneType"
	case jsontext.Array:
		return "list"
	default:
		return "dict"
	}
}

// TypeNameRaw is TypeName for a raw JSON value, judged by its first byte.
func TypeNameRaw(raw []byte) string {
	if len(raw) == 0 {
		return "NoneType"
	}
	switch raw[0] {
	case '"':
		return "str"
	case '{':
		return "dict"
	case '[':
		return "list"
	case 't', 'f':
		return "bool"
	case 'n':
		return "NoneType"
	}
	if IsIntLiteral(string(raw)) {
		return "int"
	}
	return "float"
}

func IsIntLiteral(lit string) bool { return !strings.ContainsAny(lit, ".eE") }

// Str renders v as Python's str() renders the decoded value: a string as
// itself, anything else as its repr.
func Str(v jsontext.Value) string {
	if v.Kind() == jsontext.String {
		return v.Str()
	}
	var b strings.Builder
	pyRepr(&b, v)
	return b.String()
}

// Repr renders v as Python's repr() renders the decoded value.
func Repr(v jsontext.Value) string {
	var b strings.Builder
	pyRepr(&b, v)
	return b.String()
}

func pyRepr(b *strings.Builder, v jsontext.Value) {
	switch v.Kind() {
	case jsontext.Null:
		b.WriteString("None")
	case jsontext.Bool:
		if v.Bool() {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case jsontext.Number:
		b.WriteString(pyNumber(v.Str()))
	case jsontext.String:
		b.WriteString(ReprString(v.Str()))
	case jsontext.Array:
		b.WriteByte('[')
		for i, e := range v.Elems() {
			if i > 0 {
				b.WriteString(", ")
			}
			pyRepr(b, e)
		}
		b.WriteByte(']')
	case jsontext.Object:
		b.WriteByte('{')
		for i, m := range Members(v) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ReprString(m.Key))
			b.WriteString(": ")
			pyRepr(b, m.Value)
		}
		b.WriteByte('}')
	}
}

// Members returns an object's members as a Python dict holds them after
// json.loads: a repeated key keeps its first position and its last value.
// (One function literal, so that a range over it allocates nothing.)
func Members(v jsontext.Value) iter.Seq2[int, jsontext.Member] {
	return func(yield func(int, jsontext.Member) bool) {
		if !jsontext.HasDuplicateKeys(v) {
			for i, m := range v.Members() {
				if !yield(i, m) {
					return
				}
			}
			return
		}
		pos := make(map[string]int, v.Len())
		out := make([]jsontext.Member, 0, v.Len())
		for _, m := range v.Members() {
			if i, ok := pos[m.Key]; ok {
				out[i].Value = m.Value
				continue
			}
			pos[m.Key] = len(out)
			out = append(out, m)
		}
		for i, m := range out {
			if !yield(i, m) {
				return
			}
		}
	}
}

// MemberList is Members as a slice.
func MemberList(v jsontext.Value) []jsontext.Member {
	out := make([]jsontext.Member, 0, v.Len())
	for _, m := range Members(v) {
		out = append(out, m)
	}
	return out
}

// pyNumber renders a JSON number literal as Python prints the int or float
// json.loads makes of it.
func pyNumber(lit string) string {
	if IsIntLiteral(lit) {
		if lit == "-0" {
			return "0"
		}
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return lit
	}
	return FloatRepr(f)
}

// FloatRepr renders f as Python's repr(float) does: the shortest digits
// that round-trip, fixed notation for exponents from -4 to 15, and at least
// one digit after the point.
func FloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	neg := strings.HasPrefix(e, "-")
	e = strings.TrimPrefix(e, "-")
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp >= -4 && exp < 16 {
		if exp >= 0 {
			if len(digits) <= exp+1 {
				out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
			} else {
				out = digits[:exp+1] + "." + digits[exp+1:]
			}
		} else {
			out = "0." + strings.Repeat("0", -exp-1) + digits
		}
	} else {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign = "-"
			exp = -exp
		}
		es := strconv.Itoa(exp)
		if len(es) < 2 {
			es = "0" + es
		}
		out = m + "e" + sign + es
	}
	if neg {
		out = "-" + out
	}
	return out
}

// ReprString renders s as Python's repr(str) does.
func ReprString(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for i, r := range s {
		if r == utf8.RuneError {
			if sr, ok := jsontext.SurrogateAt(s, i); ok {
				b.WriteString(`\u`) // a lone surrogate is not printable
				b.WriteString(strconv.FormatInt(int64(sr), 16))
				continue
			} else if isSurrogateTail(s, i) {
				continue
			}
		}
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(quote):
			b.WriteByte('\\')
			b.WriteByte(quote)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(int(r)))
		case r < 0x7f:
			b.WriteRune(r)
		case !unicode.IsPrint(r):
			switch {
			case r < 0x100:
				b.WriteString(`\x`)
				b.WriteString(hex2(int(r)))
			case r < 0x10000:
				b.WriteString(`\u`)
				b.WriteString(leftPad(strconv.FormatInt(int64(r), 16), 4))
			default:
				b.WriteString(`\U`)
				b.WriteString(leftPad(strconv.FormatInt(int64(r), 16), 8))
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

func hex2(n int) string { return leftPad(strconv.FormatInt(int64(n), 16), 2) }

func leftPad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

// pyIntMaxStrDigits is CPython's default limit on int() of a long string.
const pyIntMaxStrDigits = 4300

// Index parses an array index as Python's int(s) would, then indexes a
// list of length n as obj[int(s)] would. It returns the index, or the text
// of the ValueError or IndexError Python would raise.
func Index(s string, n int) (int, string) {
	t := strings.TrimFunc(s, unicode.IsSpace)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	// Python formats this message with %.200R: the repr cut at 200 characters.
	invalid := "invalid literal for int() with base 10: " + cutRunes(ReprString(s), 200)
	// CPython reads the run of digits and single underscores first, and
	// checks the digit limit on it before it looks at what follows: 4,301
	// digits and an "x" exceed the limit, they are not an invalid literal.
	if t == "" || t[0] == '_' {
		return 0, invalid
	}
	var digits strings.Builder
	prevUnderscore := false
	rest := ""
	for i, r := range t {
		if r == '_' {
			if prevUnderscore {
				return 0, invalid
			}
			prevUnderscore = true
			continue
		}
		d := unicodeDigit(r)
		if d < 0 {
			rest = t[i:]
			break
		}
		digits.WriteByte(byte('0' + d))
		prevUnderscore = false
	}
	if prevUnderscore {
		return 0, invalid
	}
	ds := digits.String()
	if len(ds) > pyIntMaxStrDigits {
		return 0, "Exceeds the limit (4300 digits) for integer string conversion: value has " +
			strconv.Itoa(len(ds)) + " digits; use sys.set_int_max_str_digits() to increase the limit"
	}
	if ds == "" || strings.TrimFunc(rest, unicode.IsSpace) != "" {
		return 0, invalid
	}
	bi, _ := new(big.Int).SetString(ds, 10)
	if neg {
		bi.Neg(bi)
	}
	if !bi.IsInt64() {
		return 0, "cannot fit 'int' into an index-sized integer"
	}
	i := bi.Int64()
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		return 0, "list index out of range"
	}
	return int(i), ""
}

// unicodeDigit returns the value of a Unicode decimal digit (category Nd), as
// Python's int() accepts them, or -1.
func unicodeDigit(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if r < 0x80 || !unicode.Is(unicode.Nd, r) {
		return -1
	}
	// Nd digits come in contiguous runs of ten, each starting at a zero.
	start := r
	for unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int(r-start) % 10
}

// cutRunes keeps the first n characters (code points) of s.
func cutRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
