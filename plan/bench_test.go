package plan_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/plantest"
)

// BenchmarkChain runs the n-step echo reference chain end to end: load,
// preflight validation, run, response.
func BenchmarkChain(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000, 100_000} {
		src := plantest.Chain(n)
		cat := mockserver.Demo()
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				p := plan.Load("chain.json", src, plan.Limits{})
				if ds := plan.Validate(p, cat); plan.HasErrors(ds) {
					b.Fatal(ds[0])
				}
				r := plan.NewRun(p, cat, plan.RunOptions{})
				r.Continue(context.Background(), nil)
				if r.Status() != plan.RunCompleted {
					b.Fatal(r.Status())
				}
				_ = r.Response()
			}
		})
	}
}

// BenchmarkLoad parses the 50,000-step chain.
func BenchmarkLoad(b *testing.B) {
	src := plantest.Chain(50_000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		plan.Load("chain.json", src, plan.Limits{})
	}
}

// BenchmarkValidate validates the n-step echo reference chain (already
// loaded): every reference walked on echo's outputSchema and every step's
// arguments checked against its inputSchema, compiled once per tool.
func BenchmarkValidate(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000, 100_000} {
		src := plantest.Chain(n)
		cat := mockserver.Demo()
		p := plan.Load("chain.json", src, plan.Limits{})
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if ds := plan.Validate(p, cat); len(ds) != 0 {
					b.Fatal(ds[0])
				}
			}
		})
	}
}
