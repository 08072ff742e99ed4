package jsontext_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/plantest"
)

// BenchmarkParse parses every plan shape of plantest at 10k and 100k steps
// (MB/s is the parse's speed on that shape):
//
//	go test ./plan/jsontext -run '^$' -bench 'Parse/wide/10k' -cpuprofile cpu.out
func BenchmarkParse(b *testing.B) {
	for _, s := range plantest.Shapes {
		for _, n := range []int{10_000, 100_000} {
			var src []byte
			b.Run(fmt.Sprintf("%s/%dk", s.Name, n/1000), func(b *testing.B) {
				if src == nil {
					src = s.Gen(n)
				}
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := jsontext.Parse(src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkAppendString writes a tool's answer text (mostly plain, with
// quotes, line breaks, a tab, HTML's characters, accents and an emoji) in
// each form of the string escaper:
//
//	go test ./plan/jsontext -run '^$' -bench AppendString -count 6
func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("{\n  \"name\": \"Ada <ada@example.com>\",\n  \"note\":\t\"café & co 🚀\"\n}\n", 400)
	for _, f := range []struct {
		name string
		fn   func([]byte, string) []byte
	}{
		{"json", jsontext.AppendJSONString},
		{"pydantic", jsontext.AppendPydanticString},
		{"marshal", jsontext.AppendMarshalString},
	} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			var out []byte
			for b.Loop() {
				out = f.fn(out[:0], s)
			}
		})
	}
}

// BenchmarkSkipValue skips whole values of each plan shape at 10k steps,
// compact (as results come) and as written (indented): the pass a result's
// index makes over the containers a reference walks past.
//
//	go test ./plan/jsontext -run '^$' -bench SkipValue
func BenchmarkSkipValue(b *testing.B) {
	for _, s := range plantest.Shapes {
		src := s.Gen(10_000)
		compact := jsontext.AppendCompact(nil, src)
		for _, form := range []struct {
			name string
			src  []byte
		}{{"indented", src}, {"compact", compact}} {
			b.Run(s.Name+"/"+form.name, func(b *testing.B) {
				b.SetBytes(int64(len(form.src)))
				for b.Loop() {
					if end := jsontext.SkipValue(form.src, 0); end < len(form.src)-1 {
						b.Fatalf("skipped to %d of %d", end, len(form.src))
					}
				}
			})
		}
	}
}

// BenchmarkIndent indents a value as a run's response writes each result
// (three levels deep): a chain's small result, and big-result's 1 MB list
// of objects of numbers and short strings.
//
//	go test ./plan/jsontext -run '^$' -bench Indent -count 6
func BenchmarkIndent(b *testing.B) {
	src := plantest.BigResult(10_000)
	doc, err := jsontext.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	list := doc.Get("steps").Index(0).Get("args").Get("value")
	for _, c := range []struct {
		name  string
		value []byte
	}{
		{"result-small", []byte(`{"value":{"n":12345678901234567890,"label":"start of the chain","ok":true}}`)},
		{"result-1MB", jsontext.AppendCompact(nil, src[list.Start():list.End()])},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.value)))
			var dst []byte
			for b.Loop() {
				dst = jsontext.AppendIndentAt(dst[:0], c.value, 3)
			}
		})
	}
}
