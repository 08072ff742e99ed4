package check

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// decodeByDecoder is decodeSchema without its scalar shortcut.
func decodeByDecoder(raw []byte) (any, error) {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return tameNumbers(v), nil
}

var scalarSeeds = []string{`true`, `false`, `null`, ` 1 `, `-0`, `1e400`, `12345678901234567890`, `1.50`, `-`, `01`, `1 2`,
	`"abc"`, `""`, `"`, `"a\"b"`, `"\u00e9"`, "\"\xff\"", "\"\t\"", `"é"`, `tru`, `nulll`, `{}`, `[1]`, ` `, `"a" "b"`}

// TestDecodeScalarAgreesWithDecoder: the shortcut gives what the decoder
// gives, or stands aside.
func TestDecodeScalarAgreesWithDecoder(t *testing.T) {
	for _, s := range scalarSeeds {
		checkScalar(t, s)
	}
}

func FuzzDecodeScalar(f *testing.F) {
	for _, s := range scalarSeeds {
		f.Add(s)
	}
	f.Fuzz(checkScalar)
}

func checkScalar(t *testing.T, s string) {
	got, ok := decodeScalar([]byte(s))
	if !ok {
		return
	}
	want, err := decodeByDecoder([]byte(s))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("decodeScalar(%q) = %#v, the decoder gives %#v, %v", s, got, want, err)
	}
}
