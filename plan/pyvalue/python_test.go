package pyvalue

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/jsontext"
)

func TestPyFloatRepr(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{1, "1.0"}, {0.1, "0.1"}, {0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"},
		{123456789012345680, "1.2345678901234568e+17"}, {0.0001, "0.0001"}, {0.00001, "1e-05"}, {1.5e-7, "1.5e-07"},
		{41.8781, "41.8781"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {2.5e300, "2.5e+300"},
	} {
		if got := FloatRepr(tc.f); got != tc.want {
			t.Errorf("FloatRepr(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestPyReprString(t *testing.T) {
	for in, want := range map[string]string{
		"abc":          `'abc'`,
		"it's":         `"it's"`,
		`say "hi"`:     `'say "hi"'`,
		`it's "x"`:     `'it\'s "x"'`,
		"a\\b":         `'a\\b'`,
		"tab\tnl\n":    `'tab\tnl\n'`,
		"\x00\x1f\x7f": `'\x00\x1f\x7f'`,
		"é☀🚀":          `'é☀🚀'`,
		"\u00a0":       `'\xa0'`,
		"\u200b":       `'\u200b'`,
		"":             `''`,
	} {
		if got := ReprString(in); got != want {
			t.Errorf("ReprString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestPyStrOfValues(t *testing.T) {
	for src, want := range map[string]string{
		`{"a": [1, 2.50, true, null], "b": {"c": "d"}}`: `{'a': [1, 2.5, True, None], 'b': {'c': 'd'}}`,
		`{"a": 1, "a": 2, "b": 3}`:                      `{'a': 2, 'b': 3}`,
		`"plain"`:                                       `plain`,
		`1e400`:                                         `None`,
		`-0`:                                            `0`,
		`12345678901234567890`:                          `12345678901234567890`,
		`[]`:                                            `[]`,
		`{}`:                                            `{}`,
	} {
		v, err := jsontext.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got := Str(v); got != want {
			t.Errorf("Str(%s) = %s, want %s", src, got, want)
		}
	}
}

func TestPyIndex(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want int
		err  string
	}{
		{"0", 3, 0, ""}, {"-1", 3, 2, ""}, {"+2", 3, 2, ""}, {"02", 3, 2, ""}, {" 1\n", 3, 1, ""}, {"1_0", 11, 10, ""},
		{"-3", 3, 0, ""}, {"-4", 3, 0, "list index out of range"}, {"3", 3, 0, "list index out of range"},
		{"", 3, 0, "invalid literal for int() with base 10: ''"},
		{"1.0", 3, 0, "invalid literal for int() with base 10: '1.0'"},
		{"_1", 3, 0, "invalid literal for int() with base 10: '_1'"},
		{"1__0", 3, 0, "invalid literal for int() with base 10: '1__0'"},
		{"1_", 3, 0, "invalid literal for int() with base 10: '1_'"},
		{"0x1", 3, 0, "invalid literal for int() with base 10: '0x1'"},
		{"- 1", 3, 0, "invalid literal for int() with base 10: '- 1'"},
		{"١", 3, 1, ""}, // ARABIC-INDIC DIGIT ONE: Python's int() accepts it
		{"99999999999999999999", 3, 0, "cannot fit 'int' into an index-sized integer"},
	} {
		got, err := Index(tc.s, tc.n)
		if got != tc.want || err != tc.err {
			t.Errorf("Index(%q, %d) = %d, %q; want %d, %q", tc.s, tc.n, got, err, tc.want, tc.err)
		}
	}
}

// TestIndexDigitLimitFirst: CPython's int() checks the 4,300-digit limit on
// the run of digits before it looks at what follows it (checked against
// CPython 3.11).
func TestIndexDigitLimitFirst(t *testing.T) {
	d := strings.Repeat("1", 4301)
	limit := func(n int) string {
		return "Exceeds the limit (4300 digits) for integer string conversion: value has " + strconv.Itoa(n) + " digits; use sys.set_int_max_str_digits() to increase the limit"
	}
	invalid := func(s string) string {
		return "invalid literal for int() with base 10: " + cutRunes(ReprString(s), 200)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"junk after the run", d + "x", limit(4301)},
		{"a fraction", d + ".0", limit(4301)},
		{"an exponent", d + "e5", limit(4301)},
		{"an underscore between digits joins the run", d + "_1", limit(4302)},
		{"NUL", d + "\x00", limit(4301)},
		{"spaces and a sign around", " +" + d + " x", limit(4301)},
		{"a Unicode digit counts", d + "\u0661x", limit(4302)},
		{"a double underscore is a syntax error first", d + "__1", invalid(d + "__1")},
		{"a trailing underscore too", d + "_", invalid(d + "_")},
		{"a leading underscore too", "_" + d, invalid("_" + d)},
		{"a short run with junk", "11x", invalid("11x")},
		{"a sign alone", "-", invalid("-")},
		{"exactly the limit is a number", strings.Repeat("0", 4300) + " ", "list index out of range"},
	} {
		if _, got := Index(tc.in, 0); got != tc.want {
			t.Errorf("%s: got %.120q\nwant %.120q", tc.name, got, tc.want)
		}
	}
}

// TestPydanticFloat: pydantic-core's spelling (pydantic_core.to_json).
func TestPydanticFloat(t *testing.T) {
	for f, want := range map[float64]string{1e-7: "1e-7", 1e-5: "0.00001", 1.5e-6: "1.5e-6", 3.3e-5: "0.000033", 9.999e-6: "9.999e-6",
		1e16: "1e+16", 1.5e16: "1.5e+16", 9999999999999998: "9999999999999998.0", 1e15: "1000000000000000.0", 123.456: "123.456",
		5e-324: "5e-324", -1e-7: "-1e-7", 0.5: "0.5", 1.5e300: "1.5e+300", 2: "2.0"} {
		if got := PydanticFloat(f); got != want {
			t.Errorf("PydanticFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

// DumpsString writes Python's json.dumps (ensure_ascii) bytes: want is
// python3's json.dumps of the same str, a lone surrogate being a code
// point of its own there as the parser keeps it (WTF-8) here; a byte that
// is not UTF-8, which no str holds, is \ufffd.
func TestDumpsStringIsPythons(t *testing.T) {
	s := "a\"b\\c\n\r\t\b\f\x01\x1f\x7f é 日 🚀 \u2028\ufeff/<>&" + "\xed\xa0\x80x\xed\xbf\xbf"
	const want = `"a\"b\\c\n\r\t\b\f\u0001\u001f\u007f \u00e9 \u65e5 \ud83d\ude80 \u2028\ufeff/<>&\ud800x\udfff"`
	for in, want := range map[string]string{s: want, "\xff\xed\xa0": `"\ufffd\ufffd\ufffd"`} {
		var b strings.Builder
		DumpsString(&b, in)
		if b.String() != want {
			t.Errorf("DumpsString(%q) = %s, want %s", in, b.String(), want)
		}
	}
}
