package jsontext

import "testing"

// HasNonInteger finds a float, an exponent or a non-finite literal at any
// depth of the value asked about, and nothing outside it.
func TestHasNonInteger(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{`1`, false},
		{`-12345678901234567890`, false},
		{`1.5`, true},
		{`1e3`, true},
		{`2E-1`, true},
		{`NaN`, true},
		{`-Infinity`, true},
		{`1e400`, true},
		{`null`, false},
		{`"1.5 and 1e3 and NaN"`, false},
		{`{"a.b": 1, "e": [2, 3, {"E": "4.0"}]}`, false},
		{`{"a": [1, 2, {"b": [3, 0.5]}], "c": 7}`, true},
		{`[[[[[[[[Infinity]]]]]]]]`, true},
		{`{"1.5": "NaN", "x": [true, false, null]}`, false},
	} {
		v, err := Parse([]byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := HasNonInteger(v); got != c.want {
			t.Errorf("HasNonInteger(%s) = %v, want %v", c.src, got, c.want)
		}
	}
	// Only the value asked about: a float beside it or after it is not in it.
	v, err := Parse([]byte(`{"before": 0.5, "in": {"n": [1, 2]}, "after": 1e9}`))
	if err != nil {
		t.Fatal(err)
	}
	if in := v.Get("in"); HasNonInteger(in) {
		t.Errorf("HasNonInteger(%s) = true beside floats", in.Raw(v.d.src))
	}
	if HasNonInteger(Value{}) {
		t.Error("HasNonInteger of the zero Value = true")
	}
}
