package plan_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
)

// Tools keep their decoded and compiled schemas between validations, as a
// server validates every plan against the same catalog: validations running
// at once must share them safely (run with -race) and agree.
func TestValidationsShareToolSchemas(t *testing.T) {
	files, err := filepath.Glob("../samples/*.json")
	if err != nil || len(files) == 0 {
		t.Fatal("no samples", err)
	}
	cat := mockserver.Demo()
	var plans []*plan.Plan
	var want [][]plan.Diagnostic
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := plan.Load(f, src, plan.Limits{})
		plans = append(plans, p)
		want = append(want, check.Validate(p, cat))
	}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, f := range files {
				p := plan.Load(f, plans[i].Src.Bytes, plan.Limits{})
				got := check.Validate(p, cat)
				if len(got) != len(want[i]) {
					t.Errorf("%s: %d diagnostics at once, %d alone", f, len(got), len(want[i]))
					continue
				}
				for j := range got {
					if got[j].String() != want[i][j].String() {
						t.Errorf("%s: %s at once, %s alone", f, got[j], want[i][j])
					}
				}
			}
		}()
	}
	wg.Wait()
}
