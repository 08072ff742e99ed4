package pyvalue_test

import (
	"testing"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/pyvalue"
)

// BenchmarkScan is the pass over a value that tells whether Python would
// write it back as it is: compacting big-result's indented 1 MB literal
// argument (AppendJSONOf, as a run builds a step's arguments), checking the
// compact result echoed back (Clean, as a run accepts a result), and
// checking a chain's small result, which every step of a chain pays.
//
//	go test ./plan/pyvalue -run '^$' -bench Scan
func BenchmarkScan(b *testing.B) {
	src := plantest.BigResult(10_000)
	doc, err := jsontext.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	literal := doc.Get("steps").Index(0).Get("args").Get("value")
	compact := pyvalue.AppendJSONOf(nil, literal, src)
	b.Run("literal-1MB", func(b *testing.B) {
		b.SetBytes(int64(literal.End() - literal.Start()))
		var dst []byte
		for b.Loop() {
			dst = pyvalue.AppendJSONOf(dst[:0], literal, src)
		}
	})
	for _, c := range []struct {
		name   string
		result []byte
	}{
		{"result-1MB", compact},
		{"result-small", []byte(`{"value":{"n":12345678901234567890,"label":"start of the chain","ok":true}}`)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.result)))
			for b.Loop() {
				if clean, _ := pyvalue.Clean(c.result); !clean {
					b.Fatal("not clean")
				}
			}
		})
	}
}
