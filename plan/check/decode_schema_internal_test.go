package check

import (
	"fmt"
	"reflect"
	"testing"
)

var decodeSchemaCases = []string{
	`null`, `true`, `false`, `0`, `-0`, `1.50`, `1e400`, `-1e400`, `1E+2`, `123456789012345678901234567890`,
	`"a"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"\ud800\ud800x"`, `"\udc00"`, `"a\"b\\c\/d\n"`, `""`,
	`[]`, `{}`, `[1, [2, [3]], {"a": [null]}]`, `{"a": 1, "a": 2}`, `{"a": {"b": 1}, "a": []}`, `{"k\u0041": 1, "kA": 2}`,
	` {"x" : 1 } `, `NaN`, `[Infinity]`, `{"a": -Infinity}`, `1 2`, `{"a":1}x`, "\"\xff\"", `[1,]`, ``, ` `, `{"a"}`,
	"\ufeff{}",
}

// decodeSchema through the tape answers as encoding/json's Decoder with
// UseNumber does (decodeSchemaStd): the same value, an error where it errs.
func TestDecodeSchemaMatchesEncodingJSON(t *testing.T) {
	for _, c := range decodeSchemaCases {
		checkDecodeSchema(t, c)
	}
}

func FuzzDecodeSchema(f *testing.F) {
	for _, c := range decodeSchemaCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) { checkDecodeSchema(t, s) })
}

func checkDecodeSchema(t *testing.T, s string) {
	t.Helper()
	got, gerr := decodeSchema([]byte(s))
	want, werr := decodeSchemaStd([]byte(s))
	if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
		t.Errorf("decodeSchema(%q) = %s, %v; encoding/json: %s, %v", s, show(got), gerr, show(want), werr)
	}
}

func show(v any) string { return fmt.Sprintf("%#v", v) }
