package cli

import (
	"runtime/debug"
	"sync"
	"testing"

	"github.com/planctl/planctl/plan"
)

// TestLoadPlanRestoresGC: loads at once hold the collector off together
// and give back the setting they found, whatever their order.
func TestLoadPlanRestoresGC(t *testing.T) {
	before := debug.SetGCPercent(137)
	defer debug.SetGCPercent(before)
	src := []byte(`{"steps": [{"id": "a", "tool": "t", "args": {}}]}`)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 50 {
				if p := loadPlan("p.json", src, plan.Limits{}); len(p.Steps) != 1 {
					t.Errorf("loaded %d steps, want 1", len(p.Steps))
				}
			}
		})
	}
	wg.Wait()
	if got := debug.SetGCPercent(137); got != 137 {
		t.Errorf("after the loads GOGC is %d, want the 137 they found", got)
	}
}
