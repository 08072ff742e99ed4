package plan_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/runner"
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
				if ds := check.Validate(p, cat); plan.HasErrors(ds) {
					b.Fatal(ds[0])
				}
				r := runner.NewRun(p, cat, runner.RunOptions{})
				r.Continue(context.Background(), nil)
				if r.Status() != runner.RunCompleted {
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
				if ds := check.Validate(p, cat); len(ds) != 0 {
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
					if p := plan.Load("shape.json", src, shapeLimits); len(p.Steps) != n {
						b.Fatalf("loaded %d steps of %d: %v", len(p.Steps), n, p.Problems)
					}
				}
			})
			b.Run(name+"/validate", func(b *testing.B) {
				src := gen()
				p := plan.Load("shape.json", src, shapeLimits)
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					if ds := check.Validate(p, cat); plan.HasErrors(ds) {
						b.Fatal(ds[0])
					}
				}
			})
			b.Run(name+"/incremental", func(b *testing.B) {
				// What an editing driver pays once to validate in part later.
				src := gen()
				p := plan.Load("shape.json", src, shapeLimits)
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					if x := check.NewIncremental(p, cat, check.ValidateOptions{}); plan.HasErrors(x.Diagnostics()) {
						b.Fatal(x.Diagnostics()[0])
					}
				}
			})
			b.Run(name+"/run", func(b *testing.B) {
				src := gen()
				p := plan.Load("shape.json", src, shapeLimits)
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					r := runner.NewRun(p, cat, runner.RunOptions{DropArgs: true}) // as planctl run
					r.Continue(context.Background(), nil)
					if want := map[bool]runner.RunStatus{false: runner.RunCompleted, true: runner.RunPartial}[s.Partial]; r.Status() != want {
						b.Fatalf("run %v, want %v", r.Status(), want)
					}
					_ = r.Response()
				}
			})
		}
	}
}

var (
	heapShape = flag.String("heap-shape", "", "TestRetainedHeap: the plan shape to measure (plantest.Shapes)")
	heapSteps = flag.Int("heap-steps", 10_000, "TestRetainedHeap: the number of steps")
	heapOut   = flag.String("heap-out", "", "TestRetainedHeap: write an in-use heap profile after the run to this file")
)

// TestRetainedHeap is a measurement, not a test: what each phase of a
// command keeps alive, per byte of plan, with the collector run between
// phases (the floor of peak memory; go tool pprof -sample_index=inuse_space
// on -heap-out says whose it is).
//
//	go test ./plan -run TestRetainedHeap -heap-shape fan-in -heap-steps 10000 -heap-out heap.out -v
func TestRetainedHeap(t *testing.T) {
	if *heapShape == "" {
		t.Skip("a measurement: run with -heap-shape NAME (see docs/performance.md)")
	}
	var shape *plantest.Shape
	for i := range plantest.Shapes {
		if plantest.Shapes[i].Name == *heapShape {
			shape = &plantest.Shapes[i]
		}
	}
	if shape == nil {
		t.Fatalf("no shape %q", *heapShape)
	}
	cat, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		t.Fatal(err)
	}
	src := shape.Gen(*heapSteps)
	inuse := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base := inuse()
	report := func(phase string) {
		h := inuse() - base
		t.Logf("%-9s retained %6.1f MB, %5.2f bytes per plan byte (plan %.1f MB)", phase, float64(h)/1e6, float64(h)/float64(len(src)), float64(len(src))/1e6)
	}
	p := plan.Load("shape.json", src, shapeLimits)
	report("load")
	ds := check.ValidateList(p, cat, check.ValidateOptions{}) // what the validate command keeps
	report("validate")
	r := runner.NewRun(p, cat, runner.RunOptions{DropArgs: true}) // as planctl run without --trace
	r.Continue(context.Background(), nil)
	report("run")
	if *heapOut != "" {
		f, err := os.Create(*heapOut)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
	}
	runtime.KeepAlive(p)
	runtime.KeepAlive(ds)
	runtime.KeepAlive(r)
	runtime.KeepAlive(src)
}

// shapeLimits lifts the size bound for the shapes: the wide and fan-in
// plans pass the default 64 MiB at 100,000 steps (as .ci/bench/shapes.sh
// passes --max-bytes).
var shapeLimits = plan.Limits{MaxBytes: 4 << 30}

// BenchmarkEdit is one keystroke in the middle step of each plan shape at
// 10,000 steps (and of the 50,000-step chain the debugger's figure is of),
// through the incremental path every editing driver takes: plan.Reload of
// the new text and check.Incremental's diagnostics. The keystroke types a
// character into the step's first string argument, or into the last key
// of its first reference's path, and the next one deletes it again.
//
//	go test ./plan -run '^$' -bench Edit -benchtime 50x
func BenchmarkEdit(b *testing.B) {
	cat, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		b.Fatal(err)
	}
	type tc struct {
		name string
		src  []byte
	}
	var cases []tc
	for _, s := range plantest.Shapes {
		cases = append(cases, tc{s.Name + "/10k", s.Gen(10_000)})
	}
	cases = append(cases, tc{"chain/50k", plantest.Chain(50_000)})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p := plan.Load("shape.json", c.src, shapeLimits)
			at := keystrokeAt(p, len(p.Steps)/2)
			typed := append(append(append([]byte(nil), c.src[:at]...), 'x'), c.src[at:]...)
			x := check.NewIncremental(p, cat, check.ValidateOptions{})
			want := len(x.Diagnostics())
			texts := [][]byte{typed, c.src}
			whole0, _ := x.Counts()
			b.ReportAllocs()
			i := 0
			cpu0 := plantest.CPU()
			for b.Loop() {
				np, ds := x.Reload(texts[i%2], shapeLimits)
				if len(np.Steps) != len(p.Steps) || (i%2 == 1 && len(ds) != want) {
					b.Fatalf("edit %d: %d steps, %d diagnostics (want %d)", i, len(np.Steps), len(ds), want)
				}
				i++
			}
			b.ReportMetric(float64(plantest.CPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
			if whole, _ := x.Counts(); whole != whole0 {
				b.Fatalf("%d edits validated the whole plan", whole-whole0)
			}
		})
	}
}

// keystrokeAt is where a keystroke goes in step i: inside its first
// string argument, or inside the last key of its first reference's path.
func keystrokeAt(p *plan.Plan, i int) int {
	s := p.Steps[i]
	for _, m := range s.Args().Members() {
		if m.Value.Kind() == jsontext.String {
			return m.Value.End() - 1
		}
		if plan.IsRef(m.Value) {
			r := plan.ParseRefValue(m.Value)
			path := r.StepKey.Value
			if path.Len() > 0 {
				return path.Index(path.Len()-1).End() - 1
			}
		}
	}
	return s.Node().End() - 1
}
