package check_test

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/plantest"
)

// hasErrorsBothWays is HasErrors of src checked in parts and in order.
func hasErrorsBothWays(t testing.TB, c *plan.Catalog, src []byte) (parts, inOrder bool) {
	t.Helper()
	p := plan.Load("plan.json", src, plan.Limits{})
	old := check.SetParallelMinSteps(1)
	parts = check.HasErrors(p, c)
	check.SetParallelMinSteps(1 << 30)
	inOrder = check.HasErrors(p, c)
	check.SetParallelMinSteps(old)
	return parts, inOrder
}

// TestHasErrorsInPartsAgrees: HasErrors in parts answers what the walk in
// order answers, on every shape, with one error planted anywhere (first
// step, either side of a part's bound, last step) or none, and on a plan
// the parts leave to the walk in order (a repeated id). The budget's case
// is TestHasErrorsInPartsAtEveryBudget's.
func TestHasErrorsInPartsAgrees(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: HasErrors never checks in parts")
	}
	c, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range plantest.Shapes {
		for _, n := range []int{1, 2, 3, 7, 100, 1001} {
			src := shape.Gen(n)
			if n >= 2 {
				old := check.SetParallelMinSteps(1)
				_, inParts, _ := check.HasErrorsHow(plan.Load("plan.json", src, plan.Limits{}), c)
				check.SetParallelMinSteps(old)
				if !inParts {
					t.Errorf("%s %d steps: not checked in parts", shape.Name, n)
				}
			}
			parts, inOrder := hasErrorsBothWays(t, c, src)
			if parts != inOrder {
				t.Errorf("%s %d steps: in parts %v, in order %v", shape.Name, n, parts, inOrder)
			}
			if !shape.Partial && inOrder {
				t.Errorf("%s %d steps: an error in a plan that runs to its end", shape.Name, n)
			}
			// One error planted: an unknown tool at step k.
			steps := bytes.Count(src, []byte(`"tool": "`))
			for _, k := range []int{0, steps / 2, steps/2 - 1, steps/2 + 1, steps - 1, rng.IntN(steps)} {
				if k < 0 {
					continue
				}
				bad := plantTool(src, k, "no-such-tool")
				parts, inOrder := hasErrorsBothWays(t, c, bad)
				if !parts || !inOrder {
					t.Errorf("%s %d steps, unknown tool at step %d: in parts %v, in order %v, want both true", shape.Name, n, k, parts, inOrder)
				}
			}
		}
	}
	// A repeated id: the scope is then built step by step (in order).
	dup := bytes.Replace(plantest.Chain(50), []byte(`"step-000003"`), []byte(`"step-000001"`), 1)
	if parts, inOrder := hasErrorsBothWays(t, c, dup); parts != inOrder || !parts {
		t.Errorf("a repeated id: in parts %v, in order %v, want both true", parts, inOrder)
	}
}

// plantTool renames the tool of the k-th step of src (counting
// `"tool": "` from 0) to name.
func plantTool(src []byte, k int, name string) []byte {
	marker := []byte(`"tool": "`)
	at := 0
	for range k + 1 {
		i := bytes.Index(src[at:], marker)
		at += i + len(marker)
	}
	end := at + bytes.IndexByte(src[at:], '"')
	out := append([]byte{}, src[:at]...)
	out = append(out, name...)
	return append(out, src[end:]...)
}

func BenchmarkHasErrors(b *testing.B) {
	c, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		b.Fatal(err)
	}
	for _, shape := range plantest.Shapes {
		p := plan.Load("plan.json", shape.Gen(10_000), plan.Limits{})
		for _, mode := range []struct {
			name string
			min  int
		}{{"parts", 1}, {"in-order", 1 << 30}} {
			b.Run(shape.Name+"/"+mode.name, func(b *testing.B) {
				old := check.SetParallelMinSteps(mode.min)
				defer check.SetParallelMinSteps(old)
				for b.Loop() {
					check.HasErrors(p, c)
				}
			})
		}
	}
}
