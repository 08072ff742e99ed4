package jsontext_test

import (
	"fmt"
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
