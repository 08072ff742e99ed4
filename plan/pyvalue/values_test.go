package pyvalue_test

import (
	"testing"

	"github.com/planctl/planctl/plan/pyvalue"
)

func TestPyValues(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a": 1, "b": "x"}`, `{"a": 1, "b": "x"}`}, // nothing changes: the text is kept
		{`[1E5, 2.50, -0, -0.0, 1e-400, -1e-400]`, `[100000.0,2.5,0,-0.0,0.0,-0.0]`},
		{`[1e400, -1e400, NaN, Infinity, -Infinity]`, `[null,null,null,null,null]`},
		{`9007199254740993.0`, `9007199254740992.0`},
		{`[12345678901234567890123, 9007199254740993]`, `[12345678901234567890123, 9007199254740993]`},
		{`{"k": 1, "j": 0, "k": {"x": 1, "x": 2}}`, `{"k":{"x":2},"j":0}`},
		{`[1e16, 1e22, 0.0001, 0.00001, 123456789012345680.0]`, `[1e+16,1e+22,0.0001,1e-05,1.2345678901234568e+17]`},
		{`not json`, `not json`},
	} {
		if got := string(pyvalue.Values([]byte(tc.in))); got != tc.want {
			t.Errorf("PyValues(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestPyDumpsIndent(t *testing.T) {
	in := `{"b":[1E5,2.50,-0,-0.0,{"k":1,"k":2}],"s":"café ` + "\x7f" + ` 🚀","e":{},"l":[]}`
	want := `{
  "b": [
    100000.0,
    2.5,
    0,
    -0.0,
    {
      "k": 2
    }
  ],
  "s": "caf\u00e9 \u007f \ud83d\ude80",
  "e": {},
  "l": []
}`
	if got := string(pyvalue.DumpsIndent([]byte(in))); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestFloats: NaN and Infinity words are kept, as json.dumps writes the
// float, and everything else is as Values makes it; nil when there is
// no such word.
func TestFloats(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"x":Infinity,"y":[-Infinity,NaN],"z":1E5,"w":1e400}`, `{"x":Infinity,"y":[-Infinity,NaN],"z":100000.0,"w":null}`},
		{`{"x":Infinity,"x":2}`, `{"x":2}`}, // the last copy of a key wins, as in Values
		{`{"x":1e400}`, ""},
		{`{"s":"NaN Infinity"}`, ""},
		{`[1,2]`, ""},
		{`not JSON Infinity`, ""},
	} {
		if got := string(pyvalue.Floats([]byte(tc.in))); got != tc.want {
			t.Errorf("Floats(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
