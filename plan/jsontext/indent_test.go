package jsontext

import (
	"bytes"
	"encoding/json"
	"fmt"
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
