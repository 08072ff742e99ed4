package jsontext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestWriteIndentMatchesIndent(t *testing.T) {
	var big bytes.Buffer
	big.WriteString(`{"steps":[`)
	for i := range 5000 {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprintf(&big, `{"id":"s%d","n":12345678901234567890,"e":[],"o":{},"t":"a, b: [c]"}`, i)
	}
	big.WriteString(`]}`)
	var out bytes.Buffer
	if err := WriteIndent(&out, big.Bytes()); err != nil {
		t.Fatal(err)
	}
	want := Indent(big.Bytes())
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("WriteIndent differs from Indent (%d vs %d bytes)", out.Len(), len(want))
	}
	for _, depth := range []int{1, 3} {
		var at bytes.Buffer
		if err := WriteIndentAt(&at, big.Bytes(), depth); err != nil {
			t.Fatal(err)
		}
		if want := AppendIndentAt(nil, big.Bytes(), depth); !bytes.Equal(at.Bytes(), want) {
			t.Fatalf("WriteIndentAt at depth %d differs from AppendIndentAt (%d vs %d bytes)", depth, at.Len(), len(want))
		}
	}
	var std bytes.Buffer
	if err := json.Indent(&std, big.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, std.Bytes()) {
		t.Fatal("Indent differs from encoding/json.Indent")
	}
}

// AppendIndentAt is Indent with the nesting's indentation after every line
// break (JSON text has line breaks only between tokens once indented).
func TestAppendIndentAt(t *testing.T) {
	for _, src := range []string{`1`, `"a\nb"`, `[]`, ` { "a" : [1, {"b": {}}], "c": "x:y,z" } `, `[[[]], [1, 2]]`} {
		for depth := 0; depth < 4; depth++ {
			prefix := bytes.Repeat([]byte("  "), depth)
			want := bytes.ReplaceAll(Indent([]byte(src)), []byte("\n"), append([]byte("\n"), prefix...))
			if got := AppendIndentAt([]byte("x"), []byte(src), depth); string(got) != "x"+string(want) {
				t.Errorf("AppendIndentAt(%s, %d) = %q, want %q", src, depth, got, "x"+string(want))
			}
		}
	}
}

// Indentation deeper than one run of indentSpaces is written whole.
func TestIndentDeep(t *testing.T) {
	for _, depth := range []int{31, 32, 33, 65, 100} {
		src := strings.Repeat(`[1,`, depth) + `{"k":"v"}` + strings.Repeat(`]`, depth)
		var std bytes.Buffer
		if err := json.Indent(&std, []byte(src), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := Indent([]byte(src)); !bytes.Equal(got, std.Bytes()) {
			t.Errorf("depth %d: Indent differs from encoding/json.Indent", depth)
		}
	}
}

// AppendBounded: indented as AppendIndentAt (or compact), hidden
// characters escaped in keys and strings, items past MaxItems counted at
// each level, string values (never keys) cut to MaxStringLen.
func TestAppendBounded(t *testing.T) {
	src := `{"a": [1, 2, 3, {"x": [], "y": {}}], "k\u202ey": "abcdef", "long key name": "ab", "o": {"p": 1, "q": [ 4 , 5 ]}}`
	for _, tc := range []struct {
		depth int
		b     Bounds
		want  string
	}{
		{0, Bounds{}, "{\n  \"a\": [\n    1,\n    2,\n    3,\n    {\n      \"x\": [],\n      \"y\": {}\n    }\n  ],\n  \"k\\u202ey\": \"abcdef\",\n  \"long key name\": \"ab\",\n  \"o\": {\n    \"p\": 1,\n    \"q\": [\n      4,\n      5\n    ]\n  }\n}"},
		{0, Bounds{MaxItems: 2, MaxStringLen: 3}, "{\n  \"a\": [\n    1,\n    2,\n    … 2 more\n  ],\n  \"k\\u202ey\": \"abc\" … 3 more characters,\n  … 2 more\n}"},
		{0, Bounds{MaxItems: 1, Compact: true}, `{"a":[1,… 3 more],… 3 more}`},
		{0, Bounds{MaxStringLen: 5, Compact: true}, `{"a":[1,2,3,{"x":[],"y":{}}],"k\u202ey":"abcde" … 1 more character,"long key name":"ab","o":{"p":1,"q":[4,5]}}`},
		{1, Bounds{MaxItems: 1}, "{\n    \"a\": [\n      1,\n      … 3 more\n    ],\n    … 3 more\n  }"},
	} {
		if got := string(AppendBounded([]byte("> "), []byte(src), tc.depth, tc.b)); got != "> "+tc.want {
			t.Errorf("%+v at %d:\n%s\nwant\n> %s", tc.b, tc.depth, got, tc.want)
		}
	}
	if got, want := string(AppendBounded(nil, []byte(src), 0, Bounds{})), Display(Indent([]byte(src))); got != want {
		t.Errorf("unbounded is not Display(Indent):\n%s\nwant\n%s", got, want)
	}
}

// FuzzAppendBounded: on valid JSON without bounds AppendBounded is
// Display(Indent) (or of AppendCompact); on any text it does not panic,
// whatever the bounds (the seeds include text cut short).
func FuzzAppendBounded(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2, {"b": "cdef"}], "e": {}}`, `[[],[[1]],"x"]`, `{][ e[ta0-,-t1"a ]"\`, `{"a":"b`, `[1,2,`} {
		f.Add([]byte(s), 1, 2, false)
	}
	f.Fuzz(func(t *testing.T, src []byte, items, chars int, compact bool) {
		b := Bounds{MaxItems: items, MaxStringLen: chars, Compact: compact}
		AppendBounded(nil, src, 1, b)
		if !json.Valid(src) {
			return
		}
		want := Display(Indent(src))
		if compact {
			want = Display(AppendCompact(nil, src))
		}
		if got := string(AppendBounded(nil, src, 0, Bounds{Compact: compact})); got != want {
			t.Fatalf("%q unbounded: %s, want %s", src, got, want)
		}
	})
}

// FuzzIndent: Indent, AppendIndentAt and WriteIndent never panic, on any
// text (the seeds are strings cut short: a trailing backslash, an escape
// cut in its middle, an unclosed string, unbalanced brackets); they agree
// with one another; and on valid JSON Indent is encoding/json's.
func FuzzIndent(f *testing.F) {
	for _, s := range []string{`"a\`, `{"a":"b\`, `["\u12`, `{"k\`, `"`, `\`, `"\\`, `[1,"x\"`, `}}]`, `{"a": [1, {"b": "c"}]}`, "\"\\\xff"} {
		f.Add([]byte(s), 1)
	}
	f.Fuzz(func(t *testing.T, src []byte, depth int) {
		depth = min(max(depth, -2), 8)
		// src with a byte it does not hold just past its end: a string
		// cut short must not bring it into the output. Indent writes only
		// ASCII of its own.
		guard := byte(0x80)
		for bytes.IndexByte(src, guard) >= 0 && guard < 0xff {
			guard++
		}
		src = append(append(make([]byte, 0, len(src)+1), src...), guard)[:len(src)]
		got := Indent(src)
		if bytes.IndexByte(src, guard) < 0 && bytes.IndexByte(got, guard) >= 0 {
			t.Fatalf("%q: Indent %q read past the text's end", src, got)
		}
		at := AppendIndentAt([]byte("x"), src, depth)
		var w bytes.Buffer
		if err := WriteIndent(&w, src); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w.Bytes(), got) {
			t.Fatalf("%q: WriteIndent %q, Indent %q", src, w.Bytes(), got)
		}
		if depth == 0 && string(at) != "x"+string(got) {
			t.Fatalf("%q: AppendIndentAt at 0 %q, Indent %q", src, at, got)
		}
		if !json.Valid(src) {
			return
		}
		var std bytes.Buffer
		if err := json.Indent(&std, src, "", "  "); err != nil {
			t.Fatal(err)
		}
		// encoding/json keeps the text's trailing spaces; Indent drops them.
		if want := bytes.TrimRight(std.Bytes(), " \t\r\n"); !bytes.Equal(got, want) {
			t.Fatalf("%q: Indent %q, encoding/json %q", src, got, want)
		}
	})
}
