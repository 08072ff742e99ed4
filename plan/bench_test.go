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

// BenchmarkShapes loads, validates and runs (with its response) every plan
// shape of plantest.Shapes at 1k, 10k and 100k steps, each phase a
// benchmark of its own:
//
//	go test ./plan -run '^$' -bench 'Shapes/fan-in/10k' -benchmem
func BenchmarkShapes(b *testing.B) {
	cat, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range plantest.Shapes {
		for _, n := range []int{1_000, 10_000, 100_000} {
			var src []byte // generated on first use: -bench picks a few
			gen := func() []byte {
				if src == nil {
					src = s.Gen(n)
				}
				return src
			}
			name := fmt.Sprintf("%s/%dk", s.Name, n/1000)
			b.Run(name+"/load", func(b *testing.B) {
				src := gen()
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					plan.Load("shape.json", src, plan.Limits{})
				}
			})
			b.Run(name+"/validate", func(b *testing.B) {
				src := gen()
				p := plan.Load("shape.json", src, plan.Limits{})
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					if ds := plan.Validate(p, cat); plan.HasErrors(ds) {
						b.Fatal(ds[0])
					}
				}
			})
			b.Run(name+"/run", func(b *testing.B) {
				src := gen()
				p := plan.Load("shape.json", src, plan.Limits{})
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					r := plan.NewRun(p, cat, plan.RunOptions{})
					r.Continue(context.Background(), nil)
					if want := map[bool]plan.RunStatus{false: plan.RunCompleted, true: plan.RunPartial}[s.Partial]; r.Status() != want {
						b.Fatalf("run %v, want %v", r.Status(), want)
					}
					_ = r.Response()
				}
			})
		}
	}
}
