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
