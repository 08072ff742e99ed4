package pyvalue_test

import (
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// appendOfCases are values whose text Python keeps and values it rewrites:
// AppendJSONOf copies the first kind and must rebuild the second.
var appendOfCases = []string{
	`{"a": 1, "b": "x", "c": [true, false, null]}`,
	`{ "n" : 12345678901234567890 , "label" : "start of the chain", "ok": true }`,
	`[1.25, 3, -7, 0.5, "red", {"w": 1.25, "h": 3}]`,
	`[1E5, 2.50, -0, -0.0, 1e-400, 1e400, 1.0, 100000000000000000000.0]`,
	`{"a": 1, "a": 2, "b": {"c": 1, "c": [3]}}`,
	`{"s": "caf\u00e9", "t": "a\/b", "u": "tab\there"}`,
	`{"k\u0061": 1, "ka": 2}`,
	`[NaN, Infinity, -Infinity]`,
	`{"deep": [[[[{"x": [1, {"y": -0}]}]]]]}`,
	`{"é": "ünïcode ☃ 𝄞", "": ""}`,
	`[]`, `{}`, `[[], {}]`,
	"{\n\t\"spaces\" :\r\n [ 1 ,\t2 ] }",
	`"a string"`, `12.50`, `null`,
	`"caf\u00e9"`, `"a\/b"`, `"ünïcode ☃ 𝄞, 퀀 (U+D000: a 0xed byte)"`,
	`"\ud83d\ude00 an escaped pair"`, `"\ud800 a lone surrogate, escaped"`,
}

func TestAppendJSONOf(t *testing.T) {
	// Forty keys, repeated every seven, and forty distinct: more than the
	// scan of a result keeps apart (pyScan's 32).
	repeated := objectOf(40, func(i int) string { return `"k` + strings.Repeat("x", i%7) + `": 1` })
	distinct := objectOf(40, func(i int) string { return `"d` + strings.Repeat("x", i) + `": 2.5` })
	for _, in := range append(appendOfCases, repeated, distinct) {
		checkAppendJSONOf(t, in)
	}
}

// objectOf is an object of n members, member(i) the text of each.
func objectOf(n int, member func(i int) string) string {
	ms := make([]string, n)
	for i := range ms {
		ms[i] = member(i)
	}
	return "{" + strings.Join(ms, ", ") + "}"
}

// checkAppendJSONOf checks that AppendJSONOf writes what AppendJSON writes,
// for the document in and for a value inside a larger document (its text
// is then read at its offset in the source).
func checkAppendJSONOf(t *testing.T, in string) {
	t.Helper()
	for _, src := range []string{in, `{"before": [1, 2], "v": ` + in + `, "after": 1.0}`} {
		doc, err := jsontext.Parse([]byte(src))
		if err != nil {
			return
		}
		v := doc
		if src != in {
			v = doc.Get("v")
		}
		want := string(pyvalue.AppendJSON([]byte("prefix"), v))
		if got := string(pyvalue.AppendJSONOf([]byte("prefix"), v, []byte(src))); got != want {
			t.Fatalf("AppendJSONOf(%s) = %s, AppendJSON writes %s", src, got, want)
		}
	}
}

func FuzzAppendJSONOf(f *testing.F) {
	for _, in := range appendOfCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkAppendJSONOf(t, in)
	})
}
